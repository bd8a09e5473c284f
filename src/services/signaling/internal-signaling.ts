/**
 * Internal signaling (docs/reference/signaling.md#internal-signaling): the relay Talk clients use when no external
 * signaling server is configured. POST stores one row per recipient session and wakes that
 * session's channel (cache/wake.ts: LISTEN/NOTIFY across processes on PostgreSQL, in-process on
 * SQLite); GET takes the caller's rows, or waits for its channel until the poll ends. Nothing is
 * polled in a loop: a waiting request costs one read before and one after the wake-up.
 */
import type { Wake } from '../../cache/wake.js';
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { SessionRow } from '../../db/repositories/sessions.js';
import { ActorType } from '../../domain/constants.js';
import { badRequest, notFound } from '../../domain/errors.js';
import { permissionsIn, serverDefaultPermissions } from '../../domain/permissions.js';
import { may } from '../../domain/abilities.js';
import { signalingMode } from '../../domain/signaling.js';
import { nowSeconds } from '../../domain/time.js';
import type { AppConfigService } from '../platform/app-config.js';
import type { RequestContext } from '../platform/request-context.js';
import type { RoomsService } from '../conversations/rooms.js';
import type { RoomSessionRow, SignalingRepository } from '../../db/repositories/signaling.js';

/** Talk's answer when the mode is external: 400 with this string as data. */
export const INTERNAL_SIGNALING_DISABLED = 'Internal signaling disabled.';

/** Sessions pinged within this many seconds are listed in `usersInRoom` (Talk: ~40 s; Parley pings every 30 s). */
const USERS_IN_ROOM_WINDOW = 100;
/** Messages nobody fetched within this time are dropped. */
const MESSAGE_TTL = 300;
/** At most this many messages per POST (a call of 50 sends one per peer). */
const MAX_MESSAGES = 500;

export const signalingChannel = (sessionId: string) => `signaling:${sessionId}`;

export type PollResult = { kind: 'ok'; items: Array<{ type: string; data: unknown }> } | { kind: 'no-session'; items: Array<{ type: string; data: unknown }> };

interface InSession {
  room: RoomRow;
  attendee: AttendeeRow;
  session: SessionRow;
}

export class InternalSignalingService {
  constructor(
    private readonly rooms: RoomsService,
    private readonly repo: SignalingRepository,
    private readonly appConfig: AppConfigService,
    private readonly wake: Wake,
    private readonly pollSeconds: number,
  ) {}

  /** False in external mode (the routes then answer 400 INTERNAL_SIGNALING_DISABLED). */
  async enabled(): Promise<boolean> {
    return signalingMode(await this.appConfig.snapshot()) === 'internal';
  }

  /** The caller's session in the conversation, or undefined (404 for the routes). */
  private async inSession(ctx: RequestContext, token: string): Promise<InSession | undefined> {
    const found = await this.rooms.lookup(ctx, token);
    if (!found?.attendee || !found.session) return undefined;
    return { room: found.room, attendee: found.attendee, session: found.session };
  }

  /**
   * GET: the messages for the caller's session (waiting up to the poll time when there are none),
   * then `usersInRoom`. Without a session: 404 with an empty `usersInRoom` (as Talk).
   */
  async poll(ctx: RequestContext, token: string, abort?: AbortSignal): Promise<PollResult> {
    const me = await this.inSession(ctx, token);
    if (!me) return { kind: 'no-session', items: [{ type: 'usersInRoom', data: [] }] };
    const sessionId = me.session.session_id;
    await this.repo.pingSessions(me.room.id, [sessionId], nowSeconds());
    const deadline = Date.now() + this.pollSeconds * 1000;
    let messages: string[] = [];
    for (;;) {
      // Listen first, then read: a message stored between the two still wakes this wait.
      const listener = await this.wake.listen(signalingChannel(sessionId));
      try {
        messages = await this.repo.takeMessages(sessionId);
        const left = deadline - Date.now();
        if (messages.length || left <= 0 || abort?.aborted) break;
        const woken = await listener.wait(left, abort);
        if (!woken) break;
      } finally {
        listener.close();
      }
    }
    // Read after the messages were taken: a session ended (its participant removed, its account
    // locked out) before they were sent is no longer listed, and the poll answers as without a
    // session instead of handing them out. The poll pinged it at its start, so a live session is
    // always within the window.
    const rows = await this.repo.roomSessions(me.room.id, nowSeconds() - USERS_IN_ROOM_WINDOW);
    if (!rows.some((r) => r.session_id === sessionId)) return { kind: 'no-session', items: [{ type: 'usersInRoom', data: [] }] };
    const users = await this.usersInRoom(me.room, rows);
    return { kind: 'ok', items: [...messages.map((data) => ({ type: 'message', data })), { type: 'usersInRoom', data: users }] };
  }

  private async usersInRoom(room: RoomRow, rows: RoomSessionRow[]): Promise<unknown[]> {
    const cfg = await this.appConfig.snapshot();
    const serverDefault = serverDefaultPermissions(cfg.get('default_permissions'));
    return rows.map((r) => ({
      userId: r.actor_type === ActorType.USERS ? r.actor_id : '',
      roomId: room.id,
      lastPing: r.last_ping,
      sessionId: r.session_id,
      inCall: r.in_call,
      participantPermissions: permissionsIn(room, r, serverDefault),
      actorType: r.actor_type,
      actorId: r.actor_id,
    }));
  }

  /**
   * POST: `messages` is the JSON text of `[{ev:"message", sessionId, fn}]`. Only the caller's own
   * session may send; each message goes to `fn.to`, a session of the same room, with `from` set;
   * `control` messages only from logged-in moderators. Others are skipped silently, as in Talk.
   */
  async send(ctx: RequestContext, token: string, messagesJson: string): Promise<void> {
    const me = await this.inSession(ctx, token);
    if (!me) throw notFound('room');
    let list: unknown;
    try {
      list = JSON.parse(messagesJson);
    } catch {
      throw badRequest('messages', 'messages must be the JSON text of a list');
    }
    if (!Array.isArray(list)) throw badRequest('messages', 'messages must be the JSON text of a list');
    if (list.length > MAX_MESSAGES) throw badRequest('messages', `at most ${MAX_MESSAGES} messages per request`);
    const now = nowSeconds();
    const inRoom = new Set((await this.repo.roomSessions(me.room.id, now - USERS_IN_ROOM_WINDOW)).map((r) => r.session_id));
    const rows: Array<{ room_id: number; recipient: string; data: string; created_at: number }> = [];
    for (const item of list) {
      if (!item || typeof item !== 'object' || (item as { ev?: unknown }).ev !== 'message') continue;
      const { sessionId, fn } = item as { sessionId?: unknown; fn?: unknown };
      if (sessionId !== me.session.session_id) continue;
      let decoded: unknown = fn;
      if (typeof fn === 'string') {
        try {
          decoded = JSON.parse(fn);
        } catch {
          continue;
        }
      }
      if (!decoded || typeof decoded !== 'object' || Array.isArray(decoded)) continue;
      const msg = decoded as Record<string, unknown>;
      if (typeof msg.to !== 'string' || !inRoom.has(msg.to)) continue;
      if (msg.type === 'control' && !may.controlOthersInCall(me.attendee)) continue;
      rows.push({ room_id: me.room.id, recipient: msg.to, data: JSON.stringify({ ...msg, from: me.session.session_id }), created_at: now });
    }
    if (rows.length === 0) return;
    await this.repo.insertMessages(rows);
    await this.wake.notify([...new Set(rows.map((r) => signalingChannel(r.recipient)))]);
    // Leftovers of sessions that went away do not pile up.
    await this.repo.deleteOlderThan(now - MESSAGE_TTL);
  }
}
