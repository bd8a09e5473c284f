/**
 * What Parley tells the external signaling server when conversations change (docs/reference/signaling.md#notifications-to-the-signaling-server): `POST <server>/api/v1/room/<token>` with `invite`, `disinvite`,
 * `update`, `delete`, `participants`, `incall`, `message` and `switchto`, signed like the
 * backend API (`Spreed-Signaling-Random`/`-Checksum`, plus `Spreed-Signaling-Backend` naming
 * Parley), to every configured server.
 *
 * Through the one outbox (docs/design.md#files-push-and-federation): each change writes a row per
 * configured server (in external mode only; nothing is written in internal mode), after its
 * commit from the event subscribers, or inside the change's own transaction for the system
 * messages written with it. Topic `signaling` is ordered, destination "server token": one
 * conversation's notifications reach a server in the order they happened, whichever process
 * delivers them, and never hold back another conversation's. The body is built when it is sent
 * (reads such as the room's users happen off the request, and see the state of that moment).
 * A 5xx or no answer is tried again, at most MAX_TRIES times (Talk: 3); another refusal is final.
 * A notification older than STALE_SECONDS (a restart, a long outage) is dropped unsent: it would
 * describe a state that has moved on.
 */
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { SignalingRepository } from '../../db/repositories/signaling.js';
import {
  SIGNALING_CHECKSUM_HEADER,
  SIGNALING_RANDOM_HEADER,
  signalingChecksum,
  signalingHttpBase,
  signalingMode,
  signalingRandom,
  signalingServers,
} from '../../domain/signaling.js';
import type { AppConfigService } from '../platform/app-config.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import { signalingParticipant } from '../../presenters/signaling-participant.js';
import { permissionsIn, serverDefaultPermissions } from '../../domain/permissions.js';
import { may } from '../../domain/abilities.js';
import { ActorType } from '../../domain/constants.js';
import { roomProperties, signalingPermissions } from './signaling-backend.js';
import type { SignalingChatRelay } from './signaling-chat-relay.js';
import { Counter } from '../../domain/openmetrics.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { OutboxRepository, OutboxRow } from '../../db/repositories/outbox.js';
import { nowSeconds } from '../../domain/time.js';
import type { OutboxHandler, OutboxResult } from '../outbox/worker.js';
import type { OutboxSignal } from '../outbox/signal.js';

export interface NotifierOptions {
  /**
   * Parley's configured address (BASE_URL, or the one HOST and PORT name), sent as
   * `Spreed-Signaling-Backend`: the signaling server accepts a notification only when it names
   * one of its configured backends (docs/signaling.md).
   */
  baseUrl: string;
  /** Per-request timeout in milliseconds. */
  timeoutMs?: number;
  /** Where failed deliveries are reported (the server's log, at warn). */
  log?: { warn(details: Record<string, unknown>, message: string): void };
}

/** How one delivery to one server ended: the last answer's status, or why none came. */
export type Outcome = { status: number } | { error: string };

/** What happened, as stored in an outbox row; the body is built from it when it is sent. */
type Notice =
  | { kind: 'invite'; userIds: string[] }
  | { kind: 'disinvite'; userIds: string[]; sessionIds: string[] }
  | { kind: 'update' }
  | { kind: 'delete' }
  | { kind: 'message'; messageId: number }
  | { kind: 'incall'; sessionId: string; flags: number }
  | { kind: 'incall-all' }
  | { kind: 'participants'; attendeeIds: number[] | 'all'; onlyWithSessions: boolean }
  /** Breakout rooms started: the parent's sessions assigned to `child` switch to it. */
  | { kind: 'switch-to-child'; child: RoomRow }
  /** Breakout rooms stopped: the room's sessions switch back to `parent`. */
  | { kind: 'switch-to-parent'; parent: RoomRow };

/** An outbox row's payload: the server it is for, the conversation (as it was), what happened. */
interface Payload {
  server: string;
  room: RoomRow;
  notice: Notice;
}

export const SIGNALING_TOPIC = 'signaling';
const MAX_TRIES = 3;
const STALE_SECONDS = 60;

export class SignalingNotifier implements OutboxHandler {
  readonly topic = SIGNALING_TOPIC;
  readonly ordered = true;
  /** Deliveries (one notification to one server) that failed for good; the same in /metrics. */
  failed = 0;
  delivered = 0;
  /** `parley_signaling_notifications_total{result,status}` in /metrics (MetricsService family). */
  readonly deliveries = new Counter(
    'parley_signaling_notifications',
    'Notifications to external signaling servers by result (delivered, failed, dropped) and the HTTP status of the last try ("error": no answer, "stale": too old to send)',
  );

  constructor(
    private readonly appConfig: AppConfigService,
    private readonly repo: SignalingRepository,
    private readonly chatRelay: SignalingChatRelay,
    private readonly outbox: OutboxRepository,
    private readonly signal: OutboxSignal,
    private readonly opts: NotifierOptions,
  ) {}

  // ---- what happened (subscribed in services/subscribers.ts) ----

  /** Users added: `invite` to them; the other users get a room-list update (docs/reference/signaling.md#notifications-to-the-signaling-server). */
  async attendeesAdded(room: RoomRow, userIds: string[]): Promise<void> {
    await this.enqueue(room, { kind: 'invite', userIds });
  }

  /** Attendees removed: `disinvite` their users and sessions; the server closes their connections. */
  async attendeesRemoved(room: RoomRow, userIds: string[], sessionIds: string[]): Promise<void> {
    await this.enqueue(room, { kind: 'disinvite', userIds, sessionIds });
  }

  /** Properties changed: `update` to every user of the room and every session in it. */
  async roomUpdated(room: RoomRow): Promise<void> {
    await this.enqueue(room, { kind: 'update' });
  }

  /** Deleted: `delete` (the attendees are gone already; the server drops the room's sessions). */
  async roomsDeleted(rooms: RoomRow[]): Promise<void> {
    for (const room of rooms) await this.enqueue(room, { kind: 'delete' });
  }

  /**
   * A chat message, shared object, reaction or system message was committed: every session in
   * the room gets `message` with `{type:"chat", chat:{refresh:true, comment?}}` (docs/reference/signaling.md#notifications-to-the-signaling-server, see
   * signaling-chat-relay.ts for which carry the comment). `config`: the posting request's, so
   * that internal signaling (the usual case) costs no read per message.
   */
  async chatMessage(room: RoomRow, messageId: number, config?: AppConfigSnapshot): Promise<void> {
    await this.enqueue(room, { kind: 'message', messageId }, { config });
  }

  /**
   * The same for a message posted inside a transaction that is still open (system messages are
   * written atomically with their change): the row is written in that transaction, so it exists
   * only if the change commits, and the worker is woken once the transaction has ended (the room
   * row lock every chat post takes).
   */
  async chatMessageInTransaction(trx: Kysely<Database>, room: RoomRow, messageId: number): Promise<void> {
    // The config as of the request's start: reading it now could wait for this very
    // transaction (SQLite's one connection).
    const config = this.appConfig.lastSnapshot();
    if (config && (await this.enqueue(room, { kind: 'message', messageId }, { via: trx, config }))) {
      void this.repo.roomWritersSettled(room.id).then(
        () => this.signal.kick(),
        () => this.signal.kick(),
      );
    }
  }

  /**
   * A session joined, left or changed its flags in the call: `incall` with its entry in
   * `changed` and every in-call session in `users` (read when sent, docs/reference/signaling.md#notifications-to-the-signaling-server).
   */
  async inCallChanged(room: RoomRow, sessionId: string, flags: number): Promise<void> {
    await this.enqueue(room, { kind: 'incall', sessionId, flags });
  }

  /** The call was ended for everyone (a moderator, max_call_duration): `incall` with `all:true`. */
  async callEndedForEveryone(room: RoomRow): Promise<void> {
    await this.enqueue(room, { kind: 'incall-all' });
  }

  /**
   * Attendees' type, permissions or (guests') name changed (`all`: the room's default or call
   * permissions; `[]`: guests that were gone were cleaned up): `participants` with their
   * sessions in `changed` (with the media `permissions` the server enforces) and everybody in
   * `users`, attendees without a session as `sessionId: "0"` entries (Talk's
   * participantsModified). `onlyWithSessions`: nothing is sent when they have no session (a
   * guest's rename, as Talk).
   */
  async participantsChanged(room: RoomRow, attendeeIds: number[] | 'all', onlyWithSessions = false): Promise<void> {
    await this.enqueue(room, { kind: 'participants', attendeeIds, onlyWithSessions });
  }

  /**
   * Breakout rooms started: the sessions of each non-moderator user in the parent are told to
   * switch to the breakout room they are assigned to; stopped: the sessions in each breakout
   * room are told to switch back to the parent (`switchto {roomid, sessions}`, docs/reference/signaling.md#notifications-to-the-signaling-server).
   */
  async breakoutSwitched(parent: RoomRow, children: RoomRow[], started: boolean): Promise<void> {
    for (const child of children) {
      if (started) await this.enqueue(parent, { kind: 'switch-to-child', child });
      else await this.enqueue(child, { kind: 'switch-to-parent', parent });
    }
  }

  /** Resolves once this process's outbox worker has nothing in hand (tests, shutdown); retries due later are not waited for. */
  idle(): Promise<void> {
    return this.signal.idle();
  }

  // ---- into the outbox ----

  /**
   * One outbox row per configured server, in external mode only; true when rows were written.
   * After commit a failure to write is logged, never the request's failure (the change is done).
   */
  private async enqueue(room: RoomRow, notice: Notice, opts: { config?: AppConfigSnapshot; via?: Kysely<Database> } = {}): Promise<boolean> {
    try {
      const cfg = opts.config ?? (await this.appConfig.snapshot());
      if (signalingMode(cfg) !== 'external') return false;
      const servers = signalingServers(cfg).servers;
      if (servers.length === 0) return false;
      const createdAt = nowSeconds();
      await this.outbox.insert(
        servers.map(({ server }) => ({
          topic: SIGNALING_TOPIC,
          destination: `${server} ${room.token}`,
          dedupe_key: null,
          payload: JSON.stringify({ server, room, notice } satisfies Payload),
          created_at: createdAt,
        })),
        opts.via,
      );
      if (!opts.via) this.signal.kick();
      return true;
    } catch (e) {
      if (opts.via) throw e;
      this.opts.log?.warn({ token: room.token, kind: notice.kind, err: (e as Error).message }, 'signaling notification could not be queued');
      return false;
    }
  }

  // ---- delivery (the outbox handler of topic `signaling`) ----

  /** One row at a time (an ordered topic): built, signed and sent to its server. */
  async deliver(rows: OutboxRow[]): Promise<Map<number, OutboxResult>> {
    const results = new Map<number, OutboxResult>();
    const cfg = await this.appConfig.snapshot();
    for (const row of rows) results.set(Number(row.id), await this.deliverRow(row, cfg));
    return results;
  }

  private async deliverRow(row: OutboxRow, cfg: AppConfigSnapshot): Promise<OutboxResult> {
    const { server, room, notice } = JSON.parse(row.payload) as Payload;
    const list = signalingServers(cfg);
    // Switched to internal signaling, or this server removed, since: nobody to tell.
    if (signalingMode(cfg) !== 'external' || !list.servers.some((s) => s.server === server)) return 'drop';
    if (nowSeconds() - Number(row.created_at) > STALE_SECONDS) {
      this.deliveries.inc({ result: 'dropped', status: 'stale' });
      return 'drop';
    }
    let built: Record<string, unknown> | undefined;
    try {
      built = await this.build(room, notice);
    } catch (e) {
      // Building the body failed (a read): nothing was sent.
      this.failed++;
      this.deliveries.inc({ result: 'failed', status: 'error' });
      this.opts.log?.warn({ token: room.token, err: (e as Error).message }, 'signaling notification could not be built');
      return 'drop';
    }
    if (!built) return 'sent';
    const url = `${signalingHttpBase(server)}/api/v1/room/${encodeURIComponent(room.token)}`;
    const outcome = await this.once(url, JSON.stringify(built), list.secret);
    if ('status' in outcome && outcome.status >= 200 && outcome.status < 300) {
      this.delivered++;
      this.deliveries.inc({ result: 'delivered', status: String(outcome.status) });
      return 'sent';
    }
    // A refusal below 500 is final (the server will not accept it on a second try); a 5xx or no
    // answer is tried again, MAX_TRIES in all. Each server on its own: one refusing does not
    // keep the others from hearing it.
    const final = ('status' in outcome && outcome.status < 500) || row.attempts >= MAX_TRIES;
    if (!final) return 'retry';
    this.failed++;
    this.deliveries.inc({ result: 'failed', status: 'status' in outcome ? String(outcome.status) : 'error' });
    this.opts.log?.warn(
      { server, token: room.token, type: built.type, ...outcome, backend: `${this.opts.baseUrl}/` },
      'status' in outcome && outcome.status === 403
        ? "signaling server refused a notification (403): its backend url must be Parley's configured address (BASE_URL), and the shared secrets must match"
        : 'signaling server did not accept a notification',
    );
    return 'drop';
  }

  /** The body of a notice, read now; undefined: nothing to send after all. */
  private async build(room: RoomRow, notice: Notice): Promise<Record<string, unknown> | undefined> {
    switch (notice.kind) {
      case 'invite':
        return {
          type: 'invite',
          invite: {
            userids: notice.userIds,
            alluserids: await this.repo.userIdsOf(room.id),
            properties: roomProperties(room, { 'participant-list': 'refresh' }),
          },
        };
      case 'disinvite':
        return {
          type: 'disinvite',
          disinvite: {
            userids: notice.userIds,
            sessionids: notice.sessionIds,
            alluserids: await this.repo.userIdsOf(room.id),
            properties: roomProperties(room, { 'participant-list': 'refresh' }),
          },
        };
      case 'update':
        return { type: 'update', update: { userids: await this.repo.userIdsOf(room.id), properties: roomProperties(room) } };
      case 'delete':
        return { type: 'delete', delete: { userids: [] } };
      case 'message': {
        const data = await this.chatRelay.data(room, notice.messageId);
        return data && { type: 'message', message: { data } };
      }
      case 'incall': {
        const serverDefault = await this.serverDefault();
        const sessions = await this.repo.roomSessions(room.id, 0);
        const entry = (s: (typeof sessions)[number]) => signalingParticipant(room, s, serverDefault, { incall: true });
        const mine = sessions.find((s) => s.session_id === notice.sessionId);
        return {
          type: 'incall',
          incall: {
            incall: notice.flags,
            changed: mine ? [{ ...entry(mine), inCall: notice.flags }] : [],
            users: sessions.filter((s) => s.in_call !== 0).map(entry),
          },
        };
      }
      case 'incall-all':
        return { type: 'incall', incall: { incall: 0, all: true } };
      case 'participants':
        return this.participants(room, notice.attendeeIds, notice.onlyWithSessions);
      case 'switch-to-child': {
        const members = new Set(await this.repo.userIdsOf(notice.child.id));
        const sessions = (await this.repo.roomSessions(room.id, 0)).filter(
          (s) => s.actor_type === ActorType.USERS && may.joinOneBreakoutRoom(s) && members.has(s.actor_id),
        );
        return sessions.length ? { type: 'switchto', switchto: { roomid: notice.child.token, sessions: sessions.map((s) => s.session_id) } } : undefined;
      }
      case 'switch-to-parent': {
        const sessions = await this.repo.roomSessions(room.id, 0);
        return sessions.length ? { type: 'switchto', switchto: { roomid: notice.parent.token, sessions: sessions.map((s) => s.session_id) } } : undefined;
      }
    }
  }

  private async participants(room: RoomRow, attendeeIds: number[] | 'all', onlyWithSessions: boolean): Promise<Record<string, unknown> | undefined> {
    const serverDefault = await this.serverDefault();
    const sessions = await this.repo.roomSessions(room.id, 0);
    const fresh = (await this.repo.room(room.id)) ?? room;
    const changed = sessions
      .filter((s) => attendeeIds === 'all' || attendeeIds.includes(s.attendee_id))
      .map((s) => ({
        ...signalingParticipant(fresh, s, serverDefault),
        permissions: signalingPermissions(permissionsIn(fresh, s, serverDefault), { participant_type: s.participant_type }),
      }));
    if (onlyWithSessions && changed.length === 0) return undefined;
    const sessionless = (await this.repo.attendeesWithoutSession(room.id)).map((a) => signalingParticipant(fresh, a, serverDefault));
    return {
      type: 'participants',
      participants: { changed, users: [...sessions.map((s) => signalingParticipant(fresh, s, serverDefault)), ...sessionless] },
    };
  }

  private async serverDefault(): Promise<number> {
    return serverDefaultPermissions((await this.appConfig.snapshot()).get('default_permissions'));
  }

  /**
   * The setup check's backend request (`parley doctor`): one signed notification, tried once, to
   * `server` for a conversation that does not exist (nothing reaches any client). A signaling
   * server that does not accept Parley's address or secret answers 403.
   */
  async probe(server: string, secret: string): Promise<Outcome> {
    const body = JSON.stringify({ type: 'update', update: { userids: [], properties: {} } });
    return this.once(`${signalingHttpBase(server)}/api/v1/room/parley-setup-check`, body, secret);
  }

  /** One try: the answer's status, or why none came. */
  private once(url: string, body: string, secret: string): Promise<Outcome> {
    return this.post(url, body, secret).then(
      (status) => ({ status }),
      (e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }),
    );
  }

  /** One signed POST; its answer's status once the body has been read. */
  private async post(url: string, body: string, secret: string): Promise<number> {
    const random = signalingRandom();
    const res = await fetch(url, {
      method: 'POST',
      body,
      headers: {
        'Content-Type': 'application/json',
        [SIGNALING_RANDOM_HEADER]: random,
        [SIGNALING_CHECKSUM_HEADER]: signalingChecksum(secret, random, body),
        'Spreed-Signaling-Backend': `${this.opts.baseUrl}/`,
      },
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 5000),
    });
    await res.arrayBuffer();
    return res.status;
  }
}
