/**
 * Recognising the caller in a conversation by the cookie session it carries (docs/reference/participants.md#joining-and-leaving): an anonymous caller is the guest whose live session its cookie remembers, and a caller's
 * own sessions are shown in its conversation records. Used by the conversation lookup
 * (RoomsService) and written to by joins (SessionService); it depends on neither, so the two
 * need no callbacks into each other.
 */
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { ParticipantsRepository } from '../../db/repositories/participants.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { SessionRow } from '../../db/repositories/sessions.js';
import { isSessionAlive } from '../../domain/participants.js';
import { nowSeconds } from '../../domain/time.js';
import { ActorType, SESSION_TIMEOUT } from '../../domain/constants.js';
import { cookieLoginHolds } from '../../domain/cookie-login.js';
import type { GroupsRepository } from '../../db/repositories/groups.js';
import { tabIdOf, type ClientSessionService } from './client-sessions.js';
import type { RequestContext } from '../platform/request-context.js';

export class CallerSessions {
  constructor(
    private readonly repo: ParticipantsRepository,
    private readonly cookies: ClientSessionService,
    private readonly groups: Pick<GroupsRepository, 'groupsOf'>,
  ) {}

  /**
   * An anonymous caller is the guest whose live session its cookie remembers for this token, or
   * the user whose session it is while the login the cookie session was opened with still holds
   * (enabled account, credential not revoked, password unchanged: domain/cookie-login.ts) and
   * `allowed_groups` still admits them; otherwise the cookie recognises nobody.
   */
  async findGuest(ctx: RequestContext, room: RoomRow): Promise<{ attendee: AttendeeRow; session?: SessionRow } | undefined> {
    if (ctx.user) return undefined;
    const keyHash = this.cookies.keyHash(ctx);
    if (!keyHash) return undefined;
    const [hit] = await this.repo.sessionsByCookie(keyHash, tabIdOf(ctx), [room.token]);
    if (!hit || hit.attendee.room_id !== room.id) return undefined;
    const now = nowSeconds();
    if (!isSessionAlive(hit.session.last_ping, now)) return undefined;
    if (hit.attendee.actor_type === ActorType.USERS) {
      if (!cookieLoginHolds(hit.attendee.actor_id, hit.login, now)) return undefined;
      // Read only where the configuration restricts Talk to some groups (not on the default path).
      const allowed = (await ctx.config()).list('allowed_groups');
      if (allowed.length > 0) {
        const mine = await this.groups.groupsOf(hit.attendee.actor_id);
        if (!allowed.some((g) => mine.includes(g))) return undefined;
      }
    }
    await this.keepAlive([hit.session], now);
    return { attendee: hit.attendee, session: hit.session };
  }

  /** The caller's own sessions (the ones its cookie remembers) for several conversations (attendee id → session). */
  async findOwnSessions(
    ctx: RequestContext,
    views: ReadonlyArray<{ room: Pick<RoomRow, 'token'>; attendee: Pick<AttendeeRow, 'id'> }>,
  ): Promise<Map<number, SessionRow>> {
    const out = new Map<number, SessionRow>();
    const keyHash = this.cookies.keyHash(ctx);
    if (!keyHash || views.length === 0) return out;
    const wanted = new Set(views.map((v) => v.attendee.id));
    const now = nowSeconds();
    const hits = await this.repo.sessionsByCookie(
      keyHash,
      tabIdOf(ctx),
      views.map((v) => v.room.token),
    );
    for (const h of hits) if (wanted.has(h.attendee.id) && isSessionAlive(h.session.last_ping, now)) out.set(h.attendee.id, h.session);
    await this.keepAlive([...out.values()], now);
    return out;
  }

  /**
   * Requests made by a session's holder count as pings (Parley has no signaling ping); written
   * at most every SESSION_TIMEOUT seconds per session.
   */
  private async keepAlive(sessions: SessionRow[], now: number): Promise<void> {
    const due = sessions.filter((s) => s.last_ping < now - SESSION_TIMEOUT);
    await this.repo.pingSessions(
      due.map((s) => s.id),
      now,
    );
    for (const s of due) s.last_ping = now;
  }
}
