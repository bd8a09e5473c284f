/**
 * What Parley tells the external signaling server when conversations change (talk-chat-calls.md
 * §5.7; hpb-signaling.md §4): `POST <server>/api/v1/room/<token>` with `invite`, `disinvite`,
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
import { isModeratorType, permissionsIn, serverDefaultPermissions } from '../../domain/permissions.js';
import { ActorType } from '../../domain/constants.js';
import { roomProperties, signalingPermissions } from './signaling-backend.js';
import type { SignalingChatRelay } from './signaling-chat-relay.js';

export interface NotifierOptions {
  /** Base URL of Parley, sent as `Spreed-Signaling-Backend`. */
  baseUrl: string;
  /** Milliseconds before the second try; doubled for each further try. */
  retryDelayMs?: number;
  /** Per-request timeout in milliseconds. */
  timeoutMs?: number;
  log?: (message: string) => void;
}

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
  /** Deliveries that failed for good (for tests and /metrics-style checks). */
  failed = 0;
  delivered = 0;

  constructor(
    private readonly appConfig: AppConfigService,
    private readonly repo: SignalingRepository,
    private readonly chatRelay: SignalingChatRelay,
    private readonly opts: NotifierOptions,
  ) {}

  // ---- what happened (subscribed in events/subscribers.ts; each returns at once) ----

  /** Users added: `invite` to them; the other users get a room-list update (§5.7). */
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
   * the room gets `message` with `{type:"chat", chat:{refresh:true, comment?}}` (§5.7, see
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
   * `changed` and every in-call session in `users` (read when sent, §5.7).
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
   * room are told to switch back to the parent (`switchto {roomid, sessions}`, §5.7).
   */
  breakoutSwitched(parent: RoomRow, children: RoomRow[], started: boolean): void {
    if (started) {
      for (const child of children) {
        this.enqueue(parent.token, async () => {
          const members = new Set(await this.repo.userIdsOf(child.id));
          const sessions = (await this.repo.roomSessions(parent.id, 0)).filter(
            (s) => s.actor_type === ActorType.USERS && !isModeratorType(s.participant_type) && members.has(s.actor_id),
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
      this.opts.log?.(`signaling notification queue full; dropped one for ${dropped.token}`);
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
        this.failed++;
        this.opts.log?.(`signaling notification for ${next.token} failed: ${(e as Error).message}`);
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
      await this.send(url, body, list.secret);
    }
    this.delivered++;
  }

  /**
   * POSTs one notification: a 2xx is done, another status below 500 is refused for good (the
   * server will not accept it on a second try), a 5xx or a failure to connect or read the answer
   * is tried again, at most MAX_TRIES times.
   */
  private async send(url: string, body: string, secret: string): Promise<void> {
    let delay = this.opts.retryDelayMs ?? 200;
    for (let attempt = 1; ; attempt++) {
      const status = await this.post(url, body, secret).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
      if (typeof status === 'number' && status < 500) {
        if (status < 200 || status >= 300) throw new Error(`${url} answered ${status}`);
        return;
      }
      const problem = typeof status === 'number' ? `${url} answered ${status}` : `${url}: ${status.message}`;
      if (attempt >= MAX_TRIES) throw new Error(`${problem} (gave up after ${MAX_TRIES} tries)`);
      await new Promise((r) => setTimeout(r, delay));
      delay *= 2;
    }
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
