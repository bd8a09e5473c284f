/**
 * What Parley tells the external signaling server when conversations change (docs/reference/signaling.md#notifications-to-the-signaling-server; docs/reference/signaling.md#notifications-to-the-signaling-server): `POST <server>/api/v1/room/<token>` with `invite`, `disinvite`,
 * `update`, `delete`, `participants`, `incall` and `message`, signed like
 * the backend API (`Spreed-Signaling-Random`/`-Checksum`, plus `Spreed-Signaling-Backend` naming
 * Parley), to every configured server.
 *
 * Called from event subscribers after commit. Sending never blocks the API request: a
 * notification goes into an in-memory queue drained by one background loop, each delivery tried
 * at most MAX_TRIES times on connection errors and 5xx (Talk: 3 tries). The queue is in memory
 * rather than an outbox table because the signaling server only cares about live sessions: a
 * notification delivered after a restart (minutes later) would describe a state that has moved
 * on, and every room change would cost an extra write. A full queue drops the oldest entry (logged).
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

export interface NotifierOptions {
  /**
   * Parley's configured address (BASE_URL, or the one HOST and PORT name), sent as
   * `Spreed-Signaling-Backend`: the signaling server accepts a notification only when it names
   * one of its configured backends (docs/signaling.md).
   */
  baseUrl: string;
  /** Milliseconds before the second try; doubled for each further try. */
  retryDelayMs?: number;
  /** Per-request timeout in milliseconds. */
  timeoutMs?: number;
  /** Where failed deliveries and a full queue are reported (the server's log, at warn). */
  log?: { warn(details: Record<string, unknown>, message: string): void };
}

/** How one delivery to one server ended: the last answer's status, or why none came. */
export type Outcome = { status: number } | { error: string };

interface Pending {
  token: string;
  /**
   * Builds the body when it is sent (reads such as the room's users happen off the request);
   * undefined: nothing to send after all.
   */
  build: () => Promise<Record<string, unknown> | undefined>;
}

const MAX_TRIES = 3;
const MAX_QUEUE = 1000;

export class SignalingNotifier {
  private readonly queue: Pending[] = [];
  private draining: Promise<void> | undefined;
  /** Deliveries (one notification to one server) that failed for good; the same in /metrics. */
  failed = 0;
  delivered = 0;
  /** `parley_signaling_notifications_total{result,status}` in /metrics (MetricsService family). */
  readonly deliveries = new Counter(
    'parley_signaling_notifications',
    'Notifications to external signaling servers by result (delivered, failed) and the HTTP status of the last try ("error": no answer)',
  );

  constructor(
    private readonly appConfig: AppConfigService,
    private readonly repo: SignalingRepository,
    private readonly chatRelay: SignalingChatRelay,
    private readonly opts: NotifierOptions,
  ) {}

  // ---- what happened (subscribed in events/subscribers.ts; each returns at once) ----

  /** Users added: `invite` to them; the other users get a room-list update (docs/reference/signaling.md#notifications-to-the-signaling-server). */
  attendeesAdded(room: RoomRow, userIds: string[]): void {
    this.enqueue(room.token, async () => ({
      type: 'invite',
      invite: { userids: userIds, alluserids: await this.repo.userIdsOf(room.id), properties: roomProperties(room, { 'participant-list': 'refresh' }) },
    }));
  }

  /** Attendees removed: `disinvite` their users and sessions; the server closes their connections. */
  attendeesRemoved(room: RoomRow, userIds: string[], sessionIds: string[]): void {
    this.enqueue(room.token, async () => ({
      type: 'disinvite',
      disinvite: {
        userids: userIds,
        sessionids: sessionIds,
        alluserids: await this.repo.userIdsOf(room.id),
        properties: roomProperties(room, { 'participant-list': 'refresh' }),
      },
    }));
  }

  /** Properties changed: `update` to every user of the room and every session in it. */
  roomUpdated(room: RoomRow): void {
    this.enqueue(room.token, async () => ({ type: 'update', update: { userids: await this.repo.userIdsOf(room.id), properties: roomProperties(room) } }));
  }

  /** Deleted: `delete` (the attendees are gone already; the server drops the room's sessions). */
  roomsDeleted(rooms: RoomRow[]): void {
    for (const room of rooms) this.enqueue(room.token, async () => ({ type: 'delete', delete: { userids: [] } }));
  }

  /**
   * A chat message, shared object, reaction or system message was committed: every session in
   * the room gets `message` with `{type:"chat", chat:{refresh:true, comment?}}` (docs/reference/signaling.md#notifications-to-the-signaling-server, see
   * signaling-chat-relay.ts for which carry the comment).
   */
  chatMessage(room: RoomRow, messageId: number, config?: AppConfigSnapshot): void {
    // Internal signaling (the usual case) as of the posting request's start: nobody to tell, and
    // nothing to queue or read for every message. A switch to an external server made while this
    // request ran is seen from the next request on.
    if (config !== undefined && signalingMode(config) !== 'external') return;
    this.enqueue(room.token, () => this.chatNotification(room, messageId));
  }

  /**
   * The same for a message posted inside a transaction that is still open (system messages are
   * written atomically with their change): queued at once, built once that transaction has
   * ended (the room row lock every chat post takes), and dropped when it rolled back.
   */
  chatMessageInTransaction(room: RoomRow, messageId: number): void {
    this.enqueue(room.token, async () => {
      await this.repo.roomWritersSettled(room.id);
      return this.chatNotification(room, messageId);
    });
  }

  /** The `message` notification of a committed chat row; none when the row is not there. */
  private async chatNotification(room: RoomRow, messageId: number): Promise<Record<string, unknown> | undefined> {
    const data = await this.chatRelay.data(room, messageId);
    return data && { type: 'message', message: { data } };
  }

  /**
   * A session joined, left or changed its flags in the call: `incall` with its entry in
   * `changed` and every in-call session in `users` (read when sent, docs/reference/signaling.md#notifications-to-the-signaling-server).
   */
  inCallChanged(room: RoomRow, sessionId: string, flags: number): void {
    this.enqueue(room.token, async () => {
      const serverDefault = await this.serverDefault();
      const sessions = await this.repo.roomSessions(room.id, 0);
      const entry = (s: (typeof sessions)[number]) => signalingParticipant(room, s, serverDefault, { incall: true });
      const mine = sessions.find((s) => s.session_id === sessionId);
      return {
        type: 'incall',
        incall: {
          incall: flags,
          changed: mine ? [{ ...entry(mine), inCall: flags }] : [],
          users: sessions.filter((s) => s.in_call !== 0).map(entry),
        },
      };
    });
  }

  /** The call was ended for everyone (a moderator, max_call_duration): `incall` with `all:true`. */
  callEndedForEveryone(room: RoomRow): void {
    this.enqueue(room.token, async () => ({ type: 'incall', incall: { incall: 0, all: true } }));
  }

  /**
   * Attendees' type, permissions or (guests') name changed (`all`: the room's default or call
   * permissions; `[]`: guests that were gone were cleaned up): `participants` with their
   * sessions in `changed` (with the media `permissions` the server enforces) and everybody in
   * `users`, attendees without a session as `sessionId: "0"` entries (Talk's
   * participantsModified). `onlyWithSessions`: nothing is sent when they have no session (a
   * guest's rename, as Talk).
   */
  participantsChanged(room: RoomRow, attendeeIds: number[] | 'all', onlyWithSessions = false): void {
    this.enqueue(room.token, async () => {
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
    });
  }

  /**
   * Breakout rooms started: the sessions of each non-moderator user in the parent are told to
   * switch to the breakout room they are assigned to; stopped: the sessions in each breakout
   * room are told to switch back to the parent (`switchto {roomid, sessions}`, docs/reference/signaling.md#notifications-to-the-signaling-server).
   */
  breakoutSwitched(parent: RoomRow, children: RoomRow[], started: boolean): void {
    if (started) {
      for (const child of children) {
        this.enqueue(parent.token, async () => {
          const members = new Set(await this.repo.userIdsOf(child.id));
          const sessions = (await this.repo.roomSessions(parent.id, 0)).filter(
            (s) => s.actor_type === ActorType.USERS && may.joinOneBreakoutRoom(s) && members.has(s.actor_id),
          );
          return sessions.length ? { type: 'switchto', switchto: { roomid: child.token, sessions: sessions.map((s) => s.session_id) } } : undefined;
        });
      }
      return;
    }
    for (const child of children) {
      this.enqueue(child.token, async () => {
        const sessions = await this.repo.roomSessions(child.id, 0);
        return sessions.length ? { type: 'switchto', switchto: { roomid: parent.token, sessions: sessions.map((s) => s.session_id) } } : undefined;
      });
    }
  }

  private async serverDefault(): Promise<number> {
    return serverDefaultPermissions((await this.appConfig.snapshot()).get('default_permissions'));
  }

  /** Resolves once everything queued so far was delivered or given up (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  // ---- delivery ----

  private enqueue(token: string, build: Pending['build']): void {
    if (this.queue.length >= MAX_QUEUE) {
      const dropped = this.queue.shift()!;
      this.deliveries.inc({ result: 'dropped', status: 'queue_full' });
      this.opts.log?.warn({ token: dropped.token }, 'signaling notification queue full; dropped the oldest');
    }
    this.queue.push({ token, build });
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const waiting = this.queue.length;
      // The config as it is at sending time: one read for each notification sent, and one for
      // everything that was waiting when nobody is to be told (internal mode, the usual case;
      // every chat message is queued here, so this is one read per batch, not per message).
      const cfg = await this.appConfig.snapshot();
      if (signalingMode(cfg) !== 'external') {
        this.queue.splice(0, waiting);
        continue;
      }
      const next = this.queue.shift()!;
      try {
        await this.deliver(next, cfg);
      } catch (e) {
        // Building the body failed (a read): nothing was sent.
        this.failed++;
        this.deliveries.inc({ result: 'failed', status: 'error' });
        this.opts.log?.warn({ token: next.token, err: (e as Error).message }, 'signaling notification could not be built');
      }
    }
  }

  /** Sends one notification to every configured server of `cfg` (external mode). */
  private async deliver(p: Pending, cfg: AppConfigSnapshot): Promise<void> {
    const list = signalingServers(cfg);
    const built = await p.build();
    if (!built) return;
    const body = JSON.stringify(built);
    for (const { server } of list.servers) {
      const url = `${signalingHttpBase(server)}/api/v1/room/${encodeURIComponent(p.token)}`;
      const outcome = await this.send(url, body, list.secret);
      if ('status' in outcome && outcome.status >= 200 && outcome.status < 300) {
        this.delivered++;
        this.deliveries.inc({ result: 'delivered', status: String(outcome.status) });
        continue;
      }
      // Each server on its own: one refusing does not keep the others from hearing it.
      this.failed++;
      this.deliveries.inc({ result: 'failed', status: 'status' in outcome ? String(outcome.status) : 'error' });
      this.opts.log?.warn(
        { server, token: p.token, type: built.type, ...outcome, backend: `${this.opts.baseUrl}/` },
        'status' in outcome && outcome.status === 403
          ? "signaling server refused a notification (403): its backend url must be Parley's configured address (BASE_URL), and the shared secrets must match"
          : 'signaling server did not accept a notification',
      );
    }
  }

  /**
   * POSTs one notification: a 2xx is done, another status below 500 is refused for good (the
   * server will not accept it on a second try), a 5xx or a failure to connect or read the answer
   * is tried again, at most MAX_TRIES times.
   */
  private async send(url: string, body: string, secret: string): Promise<Outcome> {
    let delay = this.opts.retryDelayMs ?? 200;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.once(url, body, secret);
      if ('status' in outcome && outcome.status < 500) return outcome;
      if (attempt >= MAX_TRIES) return outcome;
      await new Promise((r) => setTimeout(r, delay));
      delay *= 2;
    }
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
