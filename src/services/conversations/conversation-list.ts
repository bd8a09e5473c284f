/**
 * GET /room (contract "Get user's conversations"), with each conversation's record kept
 * as rendered bytes and reused by later requests while the database says it is still current.
 *
 * A record is made of the room row, the caller's attendee row, the room's last message (with
 * its user author's current name), the common read marker, the caller's own session in the
 * room, the request's configuration and group rights (ConversationViewService.requestEnv) and
 * the clock. Each request reads, in one narrow statement, the revision of each of those rows
 * (migration 0711-record-revisions: every update of a row moves its `rev`) and the two values
 * read from other rows; a kept record whose inputs all match and whose time has not run out
 * (presenters/conversation.ts `stableUntil`) is sent as it is, every other one is rendered from
 * the rows as before and kept. So a write anywhere else (a message in another conversation,
 * someone else's ping) costs a reader nothing, and a write to one of its conversations
 * re-renders that one record only; nothing is reused because nothing was written (that is
 * rendered-cache.ts, on top of this), and each process checks its own copies against the
 * database, so processes of a fleet need no invalidation channel.
 *
 * One-to-one records also show the other user's display name and, with includeStatus, status:
 * other users' rows, read for every request (one statement each for all of them) and compared
 * by value. Not kept: records a read repairs (an expired lobby timer, a missing name or PIN,
 * expired messages not yet deleted): rendered on every request, as before.
 */
import type { AttendeesRepository, ConversationRevision } from '../../db/repositories/attendees.js';
import type { RoomsRepository } from '../../db/repositories/rooms.js';
import type { UsersRepository } from '../../db/repositories/users.js';
import type { SessionRow } from '../../db/repositories/sessions.js';
import { BoundedMap } from '../../domain/bounded-map.js';
import { lobbyTimerReached } from '../../domain/permissions.js';
import { isGroupOrPublic } from '../../domain/room-settings.js';
import { needsAttendeePin } from '../../domain/sip.js';
import { nowSeconds } from '../../domain/time.js';
import { otherUserId } from '../../domain/one-to-one.js';
import { stableUntil, type ConversationRecord, type ConversationView, type UserStatus } from '../../presenters/conversation.js';
import { conversationListTopics } from '../../cache/answer-topics.js';
import type { CallerSessions } from '../participants/caller-sessions.js';
import type { ConversationViewService, RequestEnv } from './conversation-view.js';
import type { RequestContext } from '../platform/request-context.js';
import type { UserStatusService } from '../accounts/user-status.js';

export interface ConversationListOptions {
  modifiedSince: number;
  includeStatus: boolean;
  includeLastMessage: boolean;
}

/**
 * The records in order, each as its JSON bytes, the last second they all stay current without
 * a write, and the change-feed topics they were rendered from (cache/change-feed.ts): the
 * caller's conversations (all of them, shown or not), the caller's set of conversations and
 * own rows, and the other users of its one-to-ones.
 */
export interface RenderedRecords {
  parts: Buffer[];
  until: number;
  topics: string[];
}

interface KeptRecord {
  /** Everything the record was rendered from, as in `inputsOf`. */
  inputs: string;
  until: number;
  json: Buffer;
}

/** Records kept per process: about 1 KB each, so at most ~50 MB. */
const MAX_KEPT = 50_000;
const NO_STATUSES: ReadonlyMap<string, UserStatus> = new Map();

export class ConversationListService {
  private readonly kept = new BoundedMap<string, KeptRecord>(MAX_KEPT);
  constructor(
    private readonly repos: { attendees: AttendeesRepository; rooms: RoomsRepository; users: UsersRepository },
    private readonly view: ConversationViewService,
    private readonly userStatus: UserStatusService,
    private readonly callerSessions: CallerSessions,
    /**
     * VERIFY_KEPT_RECORDS (the test suites): every reuse is compared with a fresh rendering
     * (tests counting statements turn it off while they count).
     */
    public verify = false,
  ) {}

  async renderJson(ctx: RequestContext, opts: ConversationListOptions): Promise<RenderedRecords> {
    const userId = ctx.userId;
    if (userId === undefined) return { parts: [], until: Infinity, topics: [] };
    const revisions = await this.repos.attendees.conversationRevisionsOf('users', userId);
    const topics = conversationListTopics(
      userId,
      revisions.map((r) => ({ id: r.room_id, type: r.type, name: r.one_to_one_name ?? '' })),
    );
    if (revisions.length === 0) return { parts: [], until: Infinity, topics };
    const now = nowSeconds();
    const shown = opts.modifiedSince > 0 ? revisions.filter((r) => modifiedSince(r, opts)) : revisions;
    if (shown.length === 0) return { parts: [], until: Infinity, topics };
    const env = await this.view.requestEnv(ctx, true);
    const sessions = await this.callerSessions.findOwnSessions(
      ctx,
      shown.map((r) => ({ room: { token: r.token }, attendee: { id: r.attendee_id } })),
    );
    const optionsKey = `${+opts.includeStatus}${+opts.includeLastMessage}`;
    const others = await this.otherUsers(shown, userId, opts.includeStatus);

    const parts = new Array<Buffer>(shown.length);
    const inputs = new Array<string>(shown.length);
    const missed: number[] = [];
    let until = Infinity;
    for (let i = 0; i < shown.length; i++) {
      const r = shown[i];
      inputs[i] = inputsOf(r, env.signature, optionsKey, sessions.get(r.attendee_id), others.get(r.room_id));
      const k = this.kept.get(keyOf(userId, r, optionsKey));
      if (k !== undefined && k.inputs === inputs[i] && now <= k.until) {
        parts[i] = k.json;
        until = Math.min(until, k.until);
      } else missed.push(i);
    }
    if (this.verify && missed.length < shown.length) await this.verifyKept(ctx, opts, env, sessions, shown, parts);
    if (missed.length === 0) return { parts, until, topics };

    // The rows of the records to render, read after the revisions: a write in between makes
    // the rendering newer than its revisions, so the next request renders it again (never older).
    // Their validity covers what is rendered anew (other users' statuses included).
    const validity = { until: Infinity };
    const byRoom = await this.render(
      ctx,
      opts,
      env,
      missed.map((i) => shown[i]),
      sessions,
      validity,
    );
    until = Math.min(until, validity.until);
    for (const i of missed) {
      const r = shown[i];
      const got = byRoom.get(r.room_id);
      // Left between the two statements: not shown, as if read a moment later.
      if (got === undefined) continue;
      const json = Buffer.from(JSON.stringify(got.record));
      parts[i] = json;
      const status = others.get(r.room_id)?.status;
      const recordUntil = Math.min(stableUntil([got.view], status ? new Map([['', status]]) : NO_STATUSES, now), expiryOf(r, now));
      until = Math.min(until, recordUntil);
      if (keepable(got.view, now, env.sip)) this.kept.set(keyOf(userId, r, optionsKey), { inputs: inputs[i], until: recordUntil, json });
    }
    return { parts: parts.filter((p) => p !== undefined), until, topics };
  }

  /**
   * The other user of each one-to-one (room id → their display name, and their status with
   * includeStatus): read for every request, one statement each for all of them, since they
   * are other users' rows.
   */
  private async otherUsers(shown: ConversationRevision[], userId: string, includeStatus: boolean): Promise<Map<number, OtherUser>> {
    const out = new Map<number, OtherUser>();
    const ids = new Map<number, string>();
    for (const r of shown) {
      if (r.one_to_one_name === null) continue;
      const other = otherUserId({ type: r.type, name: r.one_to_one_name }, userId);
      if (other !== undefined) ids.set(r.room_id, other);
    }
    if (ids.size === 0) return out;
    const unique = [...new Set(ids.values())];
    const names = new Map((await this.repos.users.existing(unique)).map((u) => [u.id, u.display_name]));
    const statuses = includeStatus ? await this.userStatus.forUsers(unique) : undefined;
    for (const [roomId, id] of ids) out.set(roomId, { id, name: names.get(id), status: statuses?.get(id) });
    return out;
  }

  /**
   * These conversations' records rendered from their rows (room id → record and view), read
   * with their chat state in one statement; the caller's sessions as already read.
   */
  private async render(
    ctx: RequestContext,
    opts: ConversationListOptions,
    env: RequestEnv,
    revisions: ConversationRevision[],
    sessions: ReadonlyMap<number, SessionRow>,
    validity?: { until: number },
  ): Promise<Map<number, { record: ConversationRecord; view: ConversationView }>> {
    const rows = await this.repos.rooms.findByAttendeeIdsWithChat(
      revisions.map((r) => r.attendee_id),
      nowSeconds(),
    );
    const views: ConversationView[] = rows.map(({ room, attendee, chat }) => ({ room, attendee, session: sessions.get(attendee.id), chatPreload: chat }));
    const records = await this.view.present(ctx, views, { includeStatus: opts.includeStatus, includeLastMessage: opts.includeLastMessage, validity }, env);
    return new Map(views.map((view, j) => [view.room.id, { record: records[j], view }]));
  }

  /** VERIFY_KEPT_RECORDS: the reused records must be byte for byte a fresh rendering of the same rows. */
  private async verifyKept(
    ctx: RequestContext,
    opts: ConversationListOptions,
    env: RequestEnv,
    sessions: ReadonlyMap<number, SessionRow>,
    shown: ConversationRevision[],
    parts: Buffer[],
  ): Promise<void> {
    const reusedAt = shown.flatMap((_, i) => (parts[i] !== undefined ? [i] : []));
    const fresh = await this.render(
      ctx,
      opts,
      env,
      reusedAt.map((i) => shown[i]),
      sessions,
    );
    for (const i of reusedAt) {
      const got = fresh.get(shown[i].room_id);
      const expected = got && JSON.stringify(got.record);
      const reused = parts[i].toString();
      if (expected !== undefined && expected !== reused) {
        throw new Error(`kept conversation record is stale for room ${shown[i].room_id}:\n reused ${reused}\n fresh  ${expected}`);
      }
    }
  }
}

/** Per caller, conversation and options: a client alternating includeStatus keeps both renderings. */
function keyOf(userId: string, r: ConversationRevision, optionsKey: string): string {
  return `${userId}\0${r.attendee_id}\0${optionsKey}`;
}

/** Every input of a record besides the clock, as one string (compared whole). */
function inputsOf(r: ConversationRevision, envSignature: string, optionsKey: string, session: SessionRow | undefined, other: OtherUser | undefined): string {
  const s = session === undefined ? '' : `${session.session_id}:${session.in_call}:${session.last_ping}`;
  const o = other === undefined ? '' : JSON.stringify([other.id, other.name ?? null, other.status ?? null]);
  return `${optionsKey}|${envSignature}|${r.room_rev}|${r.attendee_rev}|${r.message_rev ?? ''}|${r.author_name ?? ''}|${r.common_read ?? ''}|${s}|${o}`;
}

/** The other user of a one-to-one as its record shows them. */
interface OtherUser {
  id: string;
  /** Undefined: the account is gone. */
  name: string | undefined;
  status: UserStatus | undefined;
}

/** The last second the last message is shown before it expires (Infinity when it does not). */
function expiryOf(r: ConversationRevision, now: number): number {
  const at = r.message_expires_at ?? 0;
  return at > now ? at - 1 : Infinity;
}

/**
 * GET /room modifiedSince (docs/reference/conversations.md#endpoint-rules LATEST): activity since then, an active call,
 * the caller's attendee row changed since then, and with includeStatus every one-to-one.
 */
function modifiedSince(r: ConversationRevision, opts: ConversationListOptions): boolean {
  return r.last_activity >= opts.modifiedSince || r.call_flag !== 0 || r.last_attendee_activity >= opts.modifiedSince || (opts.includeStatus && r.type === 1);
}

/** A record the read did not repair and that depends on no other user's rows. */
function keepable(v: ConversationView, now: number, sip: boolean): boolean {
  const { room, attendee } = v;
  if (!attendee) return false;
  if (lobbyTimerReached(room, now)) return false;
  if (room.name === '' && isGroupOrPublic(room.type)) return false;
  if (needsAttendeePin(sip, room, attendee)) return false;
  return !(room.next_expiry > 0 && room.next_expiry <= now);
}
