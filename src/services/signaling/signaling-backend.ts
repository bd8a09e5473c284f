/**
 * The backend API an external signaling server ("HPB") calls (docs/reference/signaling.md#backend-api;
 * docs/reference/signaling.md#backend-api): `POST /signaling/backend` with `auth`, `room` (join/leave) and `ping`.
 * Every request is signed: `Spreed-Signaling-Checksum` = hex HMAC-SHA256(shared secret of
 * `signaling_servers`, `Spreed-Signaling-Random` + raw body). Answers are always OCS 200 with
 * `{type:"error", error:{code, message}}` for refusals; a wrong checksum also counts as a
 * brute-force failure (`talkSignalingSecret`), so guessing the secret gets slow, then 429.
 */
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { ParticipantsRepository } from '../../db/repositories/participants.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { SignalingRepository } from '../../db/repositories/signaling.js';
import { ActorType } from '../../domain/constants.js';
import { permissionsIn, serverDefaultPermissions } from '../../domain/permissions.js';
import { may } from '../../domain/abilities.js';
import { SIGNALING_CHECKSUM_HEADER, SIGNALING_RANDOM_HEADER, signalingServers, validSignalingChecksum } from '../../domain/signaling.js';
import { nowSeconds } from '../../domain/time.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import type { BruteForceService } from '../accounts/brute-force.js';
import type { DirectoryService } from '../accounts/directory.js';
import type { RequestContext } from '../platform/request-context.js';
import type { SessionService } from '../participants/sessions.js';
import type { SignalingService } from './signaling.js';
import type { Repositories } from '../../db/repositories/index.js';

type Reply = Record<string, unknown>;

const error = (code: string, message: string): Reply => ({ type: 'error', error: { code, message } });
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** PHP's DateTime as JSON (Talk sends `active-since` that way), or null. */
function phpDateTime(seconds: number | null): Reply | null {
  if (!seconds) return null;
  const iso = new Date(seconds * 1000).toISOString();
  return { date: `${iso.slice(0, 10)} ${iso.slice(11, 19)}.000000`, timezone_type: 3, timezone: 'UTC' };
}

/** RoomPropertiesHelper (docs/reference/signaling.md#backend-api): what the signaling server hands its clients about a room. */
export function roomProperties(room: RoomRow, extra: Reply = { description: room.description }): Reply {
  return {
    name: room.name,
    type: room.type,
    'lobby-state': room.lobby_state,
    'lobby-timer': room.lobby_timer ? phpDateTime(room.lobby_timer) : null,
    'read-only': room.read_only,
    listable: room.listable,
    'active-since': phpDateTime(room.active_since),
    'sip-enabled': room.sip_enabled,
    ...extra,
  };
}

/** Media permissions of a session as the signaling server names them (docs/reference/signaling.md#backend-api). */
export function signalingPermissions(effective: number, attendee: Pick<AttendeeRow, 'participant_type'>): string[] {
  const out: string[] = [];
  if (may.publish(effective, 'audio')) out.push('publish-audio');
  if (may.publish(effective, 'video')) out.push('publish-video');
  if (may.publish(effective, 'screen')) out.push('publish-screen');
  if (may.controlOthersInCall(attendee)) out.push('control');
  return out;
}

export class SignalingBackendService {
  constructor(
    private readonly signaling: SignalingService,
    private readonly repos: Pick<Repositories, 'rooms'>,
    private readonly participants: ParticipantsRepository,
    private readonly sessions: SessionService,
    private readonly repo: SignalingRepository,
    private readonly directory: DirectoryService,
    private readonly bruteForce: BruteForceService,
  ) {}

  /** One backend request: `rawBody` exactly as received (the checksum covers its bytes). */
  async handle(ctx: RequestContext, rawBody: string): Promise<Reply> {
    const cfg = await ctx.config();
    const random = ctx.headers[SIGNALING_RANDOM_HEADER];
    const checksum = ctx.headers[SIGNALING_CHECKSUM_HEADER];
    // One counted attempt under the brute-force cap (429 past it; the check does not run then).
    const ok = await this.bruteForce.guard(
      ctx.ip,
      'talkSignalingSecret',
      async () => typeof random === 'string' && typeof checksum === 'string' && validSignalingChecksum(signalingServers(cfg).secret, random, checksum, rawBody),
    );
    if (!ok) {
      return error('invalid_request', 'The request could not be authenticated.');
    }
    let body: Record<string, unknown>;
    try {
      body = obj(JSON.parse(rawBody));
    } catch {
      return error('invalid_request', 'The request body is not JSON.');
    }
    switch (body.type) {
      case 'auth':
        return this.auth(obj(body.auth));
      case 'room':
        return this.room(obj(body.room), cfg);
      case 'ping':
        return this.ping(obj(body.ping));
      default:
        return error('unknown_type', 'The given type ' + JSON.stringify(body.type ?? null) + ' is not supported.');
    }
  }

  /** Hello v1 (docs/reference/signaling.md#backend-api `auth`): the ticket from the signaling settings, for that user or a guest. */
  private async auth(auth: Record<string, unknown>): Promise<Reply> {
    const params = obj(auth.params);
    const userId = str(params.userid);
    const ticket = str(params.ticket);
    if (userId !== '') {
      const user = await this.directory.users.find(userId);
      if (!user) return error('no_such_user', 'The given user does not exist.');
      if (!(await this.signaling.ticketValid(userId, ticket))) return error('invalid_ticket', 'The given ticket is not valid for this user.');
      return { type: 'auth', auth: { version: '1.0', userid: user.id, user: { displayname: user.display_name } } };
    }
    if (!(await this.signaling.ticketValid('', ticket))) return error('invalid_ticket', 'The given ticket is not valid.');
    return { type: 'auth', auth: { version: '1.0' } };
  }

  /**
   * `room` join/leave: the Talk session (from POST participants/active) must be in that room and,
   * for users, belong to that user. Anything else is the deliberately generic `no_such_room`.
   */
  private async room(req: Record<string, unknown>, cfg: AppConfigSnapshot): Promise<Reply> {
    const token = str(req.roomid);
    const userId = str(req.userid);
    const sessionId = str(req.sessionid);
    const room = token ? await this.repos.rooms.findByToken(token) : undefined;
    const hit = room && sessionId ? await this.participants.sessionInRoom(room.id, sessionId) : undefined;
    const belongs =
      hit !== undefined &&
      (userId === '' ? hit.attendee.actor_type !== ActorType.USERS : hit.attendee.actor_type === ActorType.USERS && hit.attendee.actor_id === userId);
    if (str(req.action) === 'leave') {
      // Also sent after a disinvite closed the connection; the session may be gone already.
      if (room && hit && belongs) await this.sessions.endSessions({ sessionIds: [hit.session.id], attendeeIds: [hit.attendee.id], roomIds: [room.id] });
      return { type: 'room', room: { version: '1.0', roomid: token } };
    }
    if (!room || !hit || !belongs) return error('no_such_room', 'The user is not invited to this room.');
    await this.repo.pingSessions(room.id, [sessionId], nowSeconds());
    const effective = permissionsIn(room, hit.attendee, serverDefaultPermissions(cfg.get('default_permissions')));
    return {
      type: 'room',
      room: { version: '1.0', roomid: room.token, properties: roomProperties(room), permissions: signalingPermissions(effective, hit.attendee) },
    };
  }

  /** `ping`: the listed Talk sessions of the room are alive (one statement; "0" is a placeholder). */
  private async ping(req: Record<string, unknown>): Promise<Reply> {
    const token = str(req.roomid);
    const room = token ? await this.repos.rooms.findByToken(token) : undefined;
    if (!room) return error('no_such_room', 'The user is not invited to this room.');
    const entries = Array.isArray(req.entries) ? req.entries : [];
    const ids = entries.map((e) => str(obj(e).sessionid)).filter((id) => id !== '' && id !== '0');
    await this.repo.pingSessions(room.id, ids, nowSeconds());
    return { type: 'room', room: { version: '1.0', roomid: room.token } };
  }
}
