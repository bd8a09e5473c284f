/**
 * Conversations core (contract "Conversations"; docs/reference/conversations.md#lookup-and-visibility, docs/reference/conversations.md#creation, docs/reference/conversations.md#endpoint-rules): the one lookup
 * every conversation endpoint starts with (`getRoomForCaller`), the user's list, listed rooms,
 * rename, deletion, lastActivity bumps and direct attendee insertion. Creation is RoomCreation's
 * (room-creation.ts), built on this service.
 *
 * Other areas build on this service rather than repeating it: mutators live in their own
 * service files and use `requireParticipant` / `requireModerator`, `transaction` (the
 * repositories bundle bound to one transaction) and `touch` for lastActivity; they receive the
 * repositories they read, and ConversationViewService for the record, from createServices.
 */
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { ATTENDEE_DEFAULTS, type AttendeeRow, type NewAttendee } from '../../db/repositories/attendees.js';
import { ROOM_DEFAULTS, type NewRoom, type RoomChatPreload, type RoomRow } from '../../db/repositories/rooms.js';
import { unshareRows } from '../federation/outbox-rows.js';
import { sameSecret } from '../federation/secrets.js';
import { federationSwitches } from '../../domain/federation/rules.js';
import type { Repositories } from '../../db/repositories/index.js';
import type { SessionRow } from '../../db/repositories/sessions.js';
import { badRequest, federationUnsupported, forbidden, notFound } from '../../domain/errors.js';
import { conversationTypeAllowsDelete, isOneToOneKind } from '../../domain/permissions.js';
import { may } from '../../domain/abilities.js';
import { isWellFormedToken, newToken } from '../../domain/tokens.js';
import type { ConversationView } from '../../presenters/conversation.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import type { BruteForceService } from '../accounts/brute-force.js';
import type { EventBus } from '../../events/bus.js';
import { sipConfigured } from '../../domain/sip.js';
import type { DirectoryService } from '../accounts/directory.js';
import { TurnBatch } from '../../cache/turn-batch.js';
import { listableScopesFor, type RequestContext } from '../platform/request-context.js';
import type { CallerSessions } from '../participants/caller-sessions.js';
import { conversationVisibility, isListedFor } from '../../domain/visibility.js';
import { nowSeconds } from '../../domain/time.js';
import { requireRoomName } from '../../domain/room-name.js';
import type { RoomChange } from '../../events/event-map.js';
import { chatActorOf, type ChatActor } from '../chat/chat.js';
import { ActorType, ParticipantType, RoomType } from '../../domain/constants.js';

/** A conversation as the caller reaches it: the room, and their attendee/session when they have one. */
export interface CallerRoom extends ConversationView {
  room: RoomRow;
  attendee?: AttendeeRow;
  session?: SessionRow;
}

/** The repositories a conversation's rows live in, bound to a transaction or to the database. */
export type RoomRepos = Pick<Repositories, 'rooms' | 'attendees' | 'sessions' | 'outbox'>;

export interface LookupOptions {
  /** A validated SIP-bridge request sees every conversation (docs/reference/conversations.md#lookup-and-visibility). */
  sipBridge?: boolean;
  /** Read a logged-in caller's chat state with the room (the record of GET /room/{token}). */
  withChat?: boolean;
}

export interface NewAttendeeSpec {
  actorType: string;
  actorId: string;
  displayName?: string;
  participantType: number;
  permissions?: number;
  readPrivacy?: number;
  favorite?: boolean;
  notificationLevel?: number;
  /** Phone attendees (actor type `phones`): the number they are called on. */
  phoneNumber?: string;
}

/**
 * One-to-one name: the two user ids, sorted, as PHP's json_encode writes them (Talk dedupes on
 * this exact string): `/` escaped as `\/`, non-ASCII as \uXXXX.
 */
export function oneToOneName(a: string, b: string): string {
  return phpJson([a, b].sort());
}

/** One user id as it appears inside one-to-one names (`oneToOneName`), quotes included. */
export function oneToOneNamePart(userId: string): string {
  return phpJson(userId);
}

function phpJson(value: unknown): string {
  const json = JSON.stringify(value).replace(/\//g, '\\/');
  return json.replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** The two user ids of a one-to-one's name (`oneToOneName`); none when it is not such a name. */
export function oneToOnePair(name: string): string[] {
  try {
    const ids: unknown = JSON.parse(name);
    return Array.isArray(ids) && ids.length === 2 && ids.every((x) => typeof x === 'string') ? (ids as string[]) : [];
  } catch {
    return [];
  }
}

/** The operator's stand-in attendee: an owner with no row (id 0) that matches no real actor. */
function systemAttendee(room: RoomRow): AttendeeRow {
  return { ...ATTENDEE_DEFAULTS, id: 0, room_id: room.id, actor_type: 'system', actor_id: 'system', participant_type: ParticipantType.OWNER } as AttendeeRow;
}

export class RoomsService {
  /**
   * The room-and-attendee lookups of logged-in callers, per token, one statement per batch
   * (turn-batch.ts): thousands of long-polls opening at once on one conversation would each run
   * it, and on PostgreSQL queue for a pool connection behind the others'. Gathered only where a
   * statement is a round trip (a pool: PostgreSQL).
   */
  private readonly memberLookups: TurnBatch<string, { room: RoomRow; attendee: AttendeeRow | undefined }>;

  constructor(
    private readonly db: Db,
    /** The repositories bundle of createServices; other services receive their own, never reach through this. */
    private readonly repos: Repositories,
    private readonly directory: DirectoryService,
    private readonly bruteForce: BruteForceService,
    private readonly events: EventBus,
    /** Finds guests and the caller's own sessions by cookie session. */
    private readonly callerSessions: CallerSessions,
  ) {
    this.memberLookups = new TurnBatch(async (token, userIds) => {
      if (userIds.length === 1) {
        const found = await this.repos.rooms.findByTokenWithMember(token, ActorType.USERS, userIds[0]);
        return new Map(found ? [[userIds[0], found]] : []);
      }
      const found = await this.repos.rooms.findByTokenWithMembers(token, ActorType.USERS, userIds);
      return new Map(found ? userIds.map((id) => [id, { room: found.room, attendee: found.attendees.get(id) }]) : []);
    }, db.pool !== undefined);
  }

  /** Runs `fn` in one transaction with repositories bound to it. */
  transaction<T>(fn: (repos: Repositories, trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.db.kysely.transaction().execute((trx) => fn(this.repos.withTransaction(trx), trx));
  }

  /** Announces a new participant type inside its transaction (moderator promoted/demoted). */
  announceTypeChange(trx: Kysely<Database>, room: RoomRow, actor: ChatActor, attendee: AttendeeRow, to: number): Promise<void> {
    return this.events.emit('attendee.type-changed', { trx, room, actor, attendee, from: attendee.participant_type, to });
  }

  /** Announces an attendee's new permissions inside their transaction (a federated attendee's server is told). */
  announcePermissionsChange(trx: Kysely<Database>, room: RoomRow, attendee: AttendeeRow, permissions: number): Promise<void> {
    return this.events.emit('attendee.permissions-changed', { trx, room, attendee, permissions });
  }

  /** Announces a change inside its transaction (the chat records it as a system message). */
  announceChange(trx: Kysely<Database>, room: RoomRow, actor: ChatActor, change: RoomChange): Promise<void> {
    return this.events.emit('room.changed', { trx, room, actor, change });
  }

  /**
   * Runs `fn` in one transaction holding the conversation's row lock, so decisions over several
   * attendee rows ("a moderator stays") and the write they allow are one step across processes.
   * A conversation deleted since the caller read it locks nothing: 404 `room`, and nothing is
   * written (attendees, sessions or messages of a deleted conversation would be left behind).
   */
  lockedTransaction<T>(roomId: number, fn: (repos: Repositories, trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.transaction(async (repos, trx) => {
      if (!(await repos.rooms.lockRow(roomId))) throw notFound('room');
      return fn(repos, trx);
    });
  }

  /**
   * As `lockedTransaction`, for work that walks many conversations (a group's, a user's): one
   * deleted since it was listed is skipped (undefined) instead of failing the whole walk.
   */
  lockedIfExists<T>(roomId: number, fn: (repos: Repositories, trx: Kysely<Database>) => Promise<T>): Promise<T | undefined> {
    return this.transaction(async (repos, trx) => ((await repos.rooms.lockRow(roomId)) ? fn(repos, trx) : undefined));
  }

  // ---- lookup (docs/reference/conversations.md#lookup-and-visibility) ----

  /**
   * The conversation `token` for the caller: returned when it is public, when the caller is an
   * attendee, when it is listed for the logged-in caller, or for a SIP-bridge request. Anything
   * else, including malformed tokens, is the same throttled 404 `{error: "room"}`.
   */
  async getRoomForCaller(ctx: RequestContext, token: unknown, opts: LookupOptions = {}): Promise<CallerRoom> {
    const found = await this.lookup(ctx, token, opts);
    if (!found) {
      // Only misses are throttled: a guess waits (or gets 429 past the cap) before its 404 and
      // counts as a failure, so guessing stays slow while a successful lookup costs no query.
      await this.throttleMiss(ctx);
      throw notFound('room');
    }
    return found;
  }

  /** A token miss: waits (or 429 past the cap) and counts as a failure of the caller's address. */
  async throttleMiss(ctx: RequestContext): Promise<void> {
    // The operator has no address to throttle.
    if (ctx.isSystem) return;
    await this.bruteForce.failure(ctx.ip, 'talkRoomToken');
  }

  /** Same visibility rules without throttling; undefined when missing or not visible. */
  async lookup(ctx: RequestContext, token: unknown, opts: LookupOptions = {}): Promise<CallerRoom | undefined> {
    if (!isWellFormedToken(token)) return undefined;
    // A logged-in caller's attendee row comes with the room (one statement).
    const found = ctx.userId !== undefined ? await this.memberLookup(token, ctx.userId, opts.withChat === true) : undefined;
    const room = ctx.userId !== undefined ? found?.room : await this.repos.rooms.findByToken(token);
    if (!room) return undefined;
    let attendee: AttendeeRow | undefined = found?.attendee;
    let session: SessionRow | undefined;
    if (!attendee && ctx.federated) {
      attendee = await this.federatedCaller(ctx, room);
    } else if (!attendee) {
      const guest = await this.callerSessions.findGuest(ctx, room);
      attendee = guest?.attendee;
      session = guest?.session;
    }
    const visibility = conversationVisibility({
      isAttendee: attendee !== undefined,
      isSystem: ctx.isSystem,
      sipBridge: opts.sipBridge === true,
      loggedIn: ctx.user !== undefined,
      roomType: room.type,
      listable: room.listable,
    });
    if (visibility === 'hidden') return undefined;
    if (visibility === 'if-listed' && !isListedFor(room.listable, await listableScopesFor(ctx))) return undefined;
    // A conversation kept here for a host elsewhere, on an endpoint that does not work there:
    // Talk's 406, after the caller was found to be a participant (docs/federation.md#the-proxied-conversation).
    if (attendee && room.remote_token !== '' && ctx.proxiedRoomsSupported === false) throw federationUnsupported();
    if (attendee && !session) session = (await this.callerSessions.findOwnSessions(ctx, [{ room, attendee }])).get(attendee.id);
    return { room, attendee, session, ...(found?.chat ? { chatPreload: found.chat } : {}) };
  }

  /**
   * The federated attendee a proxied request speaks for (docs/reference/federation.md#proxied-requests):
   * its cloud id and shared secret must match, while federation is enabled; a wrong secret counts
   * against the address like the OCM notifications' (`talkFederationSecret`).
   */
  private async federatedCaller(ctx: RequestContext, room: RoomRow): Promise<AttendeeRow | undefined> {
    const { cloudId, secret } = ctx.federated!;
    await this.bruteForce.assertBelowCap(ctx.ip, 'talkFederationSecret');
    if (!federationSwitches(await ctx.config()).enabled) return undefined;
    const attendee = await this.repos.attendees.find(room.id, ActorType.FEDERATED_USERS, cloudId);
    if (attendee && sameSecret(attendee.access_token, secret)) return attendee;
    await this.bruteForce.failure(ctx.ip, 'talkFederationSecret');
    return undefined;
  }

  /** A user's room and attendee row (with the record's chat state when `withChat`). */
  private async memberLookup(
    token: string,
    userId: string,
    withChat: boolean,
  ): Promise<{ room: RoomRow; attendee: AttendeeRow | undefined; chat?: RoomChatPreload } | undefined> {
    if (withChat) return this.repos.rooms.findByTokenWithMember(token, ActorType.USERS, userId, nowSeconds());
    const found = await this.memberLookups.get(token, userId);
    // Callers of one batch share its rows: each gets its own copies.
    return found && { room: { ...found.room }, attendee: found.attendee && { ...found.attendee } };
  }

  /** The conversation when the caller is a participant (else 404 `room`, like a missing one). */
  async requireParticipant(ctx: RequestContext, token: unknown): Promise<CallerRoom & { attendee: AttendeeRow }> {
    const found = await this.getRoomForCaller(ctx, token);
    // The operator is treated as an owner it does not have a row for (see SystemContext).
    if (!found.attendee && ctx.isSystem) return { ...found, attendee: systemAttendee(found.room) };
    if (!found.attendee) throw notFound('room');
    return found as CallerRoom & { attendee: AttendeeRow };
  }

  /**
   * The conversation when the caller is a moderator there: owner, moderator and (unless
   * `loggedInOnly`) guest moderator. Non-moderator participants get 403 `{error: "moderator"}`.
   */
  async requireModerator(ctx: RequestContext, token: unknown, opts: { loggedInOnly?: boolean } = {}): Promise<CallerRoom & { attendee: AttendeeRow }> {
    const found = await this.requireParticipant(ctx, token);
    const ok = opts.loggedInOnly ? may.moderateAsUser(found.attendee) : may.moderate(found.attendee);
    if (!ok) throw forbidden('moderator', 'Only moderators can do this');
    return found;
  }

  // ---- lists ----

  /** Listed conversations the caller is not in (GET /listed-room), name containing `term`. */
  async listed(ctx: RequestContext, term: string): Promise<CallerRoom[]> {
    if (ctx.userId === undefined) return [];
    const scopes = await listableScopesFor(ctx);
    const rooms = await this.repos.rooms.listed(ctx.userId, scopes, term);
    return rooms.map((room) => ({ room }));
  }

  /** An owner attendee row for `user` (creation, a one-to-one refilled). */
  ownerRow(roomId: number, now: number, user: { id: string; display_name: string }): NewAttendee {
    return this.attendeeRow(roomId, now, {
      actorType: ActorType.USERS,
      actorId: user.id,
      displayName: user.display_name,
      participantType: ParticipantType.OWNER,
    });
  }

  /**
   * Before a post into a one-to-one: a user of the pair who left is added back as owner, so the
   * message reaches them (docs/reference/chat.md#sending "Side effects", Talk's
   * ensureOneToOneRoomIsFilled). Users that no longer exist stay out. Costs one read of the
   * room's (at most two) attendees per post into a one-to-one; nothing for other rooms.
   */
  async refillOneToOne(room: RoomRow): Promise<void> {
    if (room.type !== RoomType.ONE_TO_ONE) return;
    const pair = oneToOnePair(room.name);
    const present = new Set((await this.repos.attendees.forRoom(room.id)).filter((a) => a.actor_type === ActorType.USERS).map((a) => a.actor_id));
    const missing = pair.filter((id) => !present.has(id));
    if (missing.length === 0) return;
    const now = nowSeconds();
    const rows: NewAttendee[] = [];
    for (const id of missing) {
      const user = await this.directory.users.find(id);
      if (user) rows.push(this.ownerRow(room.id, now, user));
    }
    if (rows.length) await this.repos.attendees.insertIgnoringDuplicates(rows);
  }

  /** Column values every new conversation starts with. */
  roomDefaults(cfg: AppConfigSnapshot, now: number): Omit<NewRoom, 'token' | 'name' | 'type'> {
    const sipDefault = cfg.int('sip_dialin_default');
    return {
      ...ROOM_DEFAULTS,
      sip_enabled: sipDefault >= 0 && sipDefault <= 2 ? sipDefault : 0,
      last_activity: now,
      created_at: now,
    };
  }

  /** A unique token (docs/reference/constants.md#generated-identifiers): numeric when SIP is configured. */
  newToken(cfg: AppConfigSnapshot, repos: RoomRepos = this.repos): Promise<string> {
    return newToken(cfg.int('token_entropy'), sipConfigured(cfg), (t) => repos.rooms.tokenExists(t));
  }

  // ---- attendees (direct insertion for services and tests) ----

  attendeeRow(roomId: number, now: number, spec: NewAttendeeSpec): NewAttendee {
    return {
      ...ATTENDEE_DEFAULTS,
      room_id: roomId,
      actor_type: spec.actorType,
      actor_id: spec.actorId,
      display_name: spec.displayName ?? '',
      participant_type: spec.participantType,
      permissions: spec.permissions ?? 0,
      phone_number: spec.phoneNumber ?? null,
      read_privacy: spec.readPrivacy ?? 0,
      favorite: spec.favorite ? 1 : 0,
      notification_level: spec.notificationLevel ?? 0,
      last_attendee_activity: now,
      created_at: now,
    };
  }

  /**
   * Adds attendees to a conversation directly (no permission checks, no lastActivity bump):
   * for services that already decided, and for tests until the participants endpoints exist.
   * Existing (room, actor) rows are kept unchanged. Returns the rows as stored. `repos`: those
   * of the caller's transaction.
   */
  async addAttendees(roomId: number, specs: NewAttendeeSpec[], repos: RoomRepos = this.repos): Promise<AttendeeRow[]> {
    const now = nowSeconds();
    await repos.attendees.insertIgnoringDuplicates(specs.map((s) => this.attendeeRow(roomId, now, s)));
    // Read back with one query per actor type, in the order of `specs`.
    const stored = new Map<string, AttendeeRow>();
    for (const type of new Set(specs.map((s) => s.actorType))) {
      const ids = specs.filter((s) => s.actorType === type).map((s) => s.actorId);
      for (const row of await repos.attendees.actorsInRooms([roomId], type, ids)) stored.set(`${type}\0${row.actor_id}`, row);
    }
    return specs.flatMap((s) => stored.get(`${s.actorType}\0${s.actorId}`) ?? []);
  }

  /**
   * Adds one attendee (see addAttendees) under the conversation's row lock: a conversation
   * deleted since the caller read it is 404 `room` and gets no attendee (a self-join). With
   * `recordAs`, the chat records it in that transaction (`user_added` by that actor).
   */
  addAttendee(roomId: number, spec: NewAttendeeSpec, recordAs?: ChatActor): Promise<AttendeeRow> {
    return this.lockedTransaction(roomId, async (repos, trx) => {
      const [row] = await this.addAttendees(roomId, [spec], repos);
      if (recordAs) await this.announceAttendeesAddedIn(trx, (await repos.rooms.findById(roomId))!, recordAs, [row]);
      return row;
    });
  }

  /**
   * `found` with its room read again after a change committed: a change that posted its system
   * message answers the record whose lastMessage is that message, as Talk formats the room after
   * the change (`fallback`: the row as the change left it, should the room be gone meanwhile).
   */
  async reread<T extends CallerRoom>(found: T, fallback: RoomRow): Promise<T> {
    return { ...found, room: (await this.repos.rooms.findById(found.room.id)) ?? fallback };
  }

  // ---- mutations ----

  /** Moves conversations up the list: lastActivity = now (docs/reference/conversations.md#last-activity list). */
  async touch(roomIds: number[], now = nowSeconds()): Promise<void> {
    await this.repos.rooms.touch(roomIds, now);
  }

  /**
   * PUT /room/{token}: moderators (guest moderators too). 400 `event` for event rooms, `type`
   * for one-to-one, `value` for an empty or too long name. An unchanged name is a no-op.
   */
  async rename(ctx: RequestContext, token: unknown, rawName: string): Promise<CallerRoom> {
    const found = await this.requireModerator(ctx, token);
    const room = found.room;
    if (room.object_type === 'event') throw badRequest('event', 'Event conversations cannot be renamed');
    if (isOneToOneKind(room.type)) {
      throw badRequest('type', 'One-to-one conversations cannot be renamed');
    }
    if (rawName.trim() === room.name) return found;
    const name = requireRoomName(rawName, 'value');
    const now = nowSeconds();
    // Renaming from an empty (generated) name is not "activity" in Talk (no system message).
    const patch = room.name === '' ? { name } : { name, last_activity: Math.max(now, room.last_activity) };
    const renamed = { ...room, ...patch };
    await this.transaction(async (repos, trx) => {
      await repos.rooms.update(room.id, patch);
      if (room.name !== '') await this.announceChange(trx, renamed, chatActorOf(ctx, found.attendee), { kind: 'renamed', oldName: room.name, newName: name });
    });
    await this.announceUpdated(renamed);
    return this.reread(found, renamed);
  }

  /**
   * DELETE /room/{token}: moderators (guest moderators too); one-to-one only with
   * `delete_one_to_one_conversations`. Breakout children, attendees and sessions go with it, in
   * one transaction.
   */
  async deleteConversation(ctx: RequestContext, token: unknown): Promise<void> {
    const found = await this.requireModerator(ctx, token);
    const cfg = await ctx.config();
    if (!conversationTypeAllowsDelete(found.room.type, cfg.bool('delete_one_to_one_conversations'))) {
      throw badRequest('type', 'One-to-one conversations cannot be deleted; leave them instead');
    }
    await this.deleteRooms([found.room]);
  }

  /**
   * Deletes conversations with their breakout children, attendees and sessions (one transaction).
   * The rows are locked first, as `lockedTransaction` does, so a change that holds a
   * conversation's lock and then writes its attendees cannot deadlock with this deletion on
   * PostgreSQL; conversations another request deleted first are skipped.
   */
  async deleteRooms(rooms: RoomRow[]): Promise<void> {
    await this.announceDeleted(await this.transaction((repos) => RoomsService.purgeLocked(repos, rooms)));
  }

  /**
   * Inside the caller's transaction: locks `rooms`, then their breakout rooms (each set in id
   * order, so two deletions of overlapping sets cannot deadlock), then removes those still there
   * with their attendees and sessions (purgeRows). Returns the rows removed, for
   * `announceDeleted` once the transaction has committed. A room the caller already locked is
   * locked again at no cost.
   */
  static async purgeLocked(repos: RoomRepos, rooms: RoomRow[]): Promise<RoomRow[]> {
    const locked = await repos.rooms.lockRows(rooms.map((r) => r.id));
    const parents = rooms.filter((r) => locked.has(r.id));
    const children = await repos.rooms.childrenOfAll(parents.map((r) => r.token));
    const lockedChildren = await repos.rooms.lockRows(children.map((c) => c.id));
    const all = new Map<number, RoomRow>();
    for (const r of [...parents, ...children.filter((c) => lockedChildren.has(c.id))]) all.set(r.id, r);
    const gone = [...all.values()];
    await RoomsService.purgeRows(repos, gone);
    return gone;
  }

  /**
   * Removes room rows with their attendees and sessions inside a transaction the caller holds.
   * Callers then pass the same rows to `announceDeleted` once the transaction has committed.
   */
  static async purgeRows(repos: RoomRepos, rooms: RoomRow[]): Promise<void> {
    const ids = [...new Set(rooms.map((r) => r.id))];
    if (ids.length === 0) return;
    // Attendees before their sessions: see SessionsRepository.deleteForAttendees.
    const { ids: attendeeIds, federated } = await repos.attendees.deleteForRooms(ids);
    await repos.sessions.deleteForAttendees(attendeeIds);
    // Federated attendees' servers are owed SHARE_UNSHARED (docs/reference/federation.md#notifications), in this transaction.
    await repos.outbox.insert(unshareRows(federated));
    await repos.rooms.deleteByIds(ids);
  }

  /** Tells the areas that follow a conversation (the signaling server) that its properties changed. */
  async announceUpdated(room: RoomRow): Promise<void> {
    await this.events.emit('room.updated', { room });
  }

  /**
   * After commit: these attendees' type or permissions changed (`all`: the room's permissions);
   * `reason`: a guest's name changed, or guests that were gone were cleaned up.
   */
  async announceParticipantsChanged(room: RoomRow, attendeeIds: number[] | 'all', reason?: 'guest-name' | 'guests-cleaned'): Promise<void> {
    await this.events.emit('room.participants-changed', { room, attendeeIds, reason });
  }

  /** After commit: the breakout rooms of `parent` were started or stopped. */
  async announceBreakoutSwitched(parent: RoomRow, children: RoomRow[], started: boolean): Promise<void> {
    await this.events.emit('breakout.switched', { parent, children, started });
  }

  /** After commit: an attendee opened a session in `room` (POST participants/active). */
  async announceJoined(room: RoomRow, attendee: AttendeeRow): Promise<void> {
    await this.events.emit('room.joined', { room, actorType: attendee.actor_type, actorId: attendee.actor_id });
  }

  /** After commit: users were added to `room` (`invitedBy`: by this user, who invited them). */
  async announceAttendeesAdded(room: RoomRow, userIds: string[], invitedBy?: string): Promise<void> {
    if (userIds.length) await this.events.emit('room.attendees-added', { room, userIds, invitedBy });
  }

  /** Inside the adding transaction: these attendees are now members (the chat records them). */
  async announceAttendeesAddedIn(trx: Kysely<Database>, room: RoomRow, actor: ChatActor, attendees: AttendeeRow[]): Promise<void> {
    if (attendees.length) await this.events.emit('room.attendees-added.trx', { trx, room, actor, attendees });
  }

  /** Inside the removing transaction: these attendees are no longer members (the chat records them). */
  async announceAttendeesRemovedIn(trx: Kysely<Database>, room: RoomRow, actor: ChatActor, attendees: AttendeeRow[], userDeleted = false): Promise<void> {
    if (attendees.length) await this.events.emit('room.attendees-removed.trx', { trx, room, actor, attendees, userDeleted });
  }

  /** After commit: attendees (these users, these Talk sessions) are no longer in `room`. */
  async announceAttendeesRemoved(room: RoomRow, userIds: string[], sessionIds: string[]): Promise<void> {
    if (userIds.length || sessionIds.length) await this.events.emit('room.attendees-removed', { room, userIds, sessionIds });
  }

  /** Tells the areas that keep per-room data (avatars, caches) that these rooms are gone. */
  async announceDeleted(rooms: RoomRow[]): Promise<void> {
    if (rooms.length === 0) return;
    await this.events.emit('rooms.deleted', { rooms });
  }
}
