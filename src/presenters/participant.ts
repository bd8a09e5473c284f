/**
 * The participant record (contract "Participant" table; docs/reference/participants.md#the-participant-record): every field not
 * marked Removed, in Talk's order. `mergeAttendees` folds an attendee's sessions into one entry
 * (inCall OR-ed, newest lastPing, all session ids) and decides which rows are gone (stale
 * sessions, stale guests, deleted users); `formatParticipant` is pure. The participants service
 * loads everything these need in a constant number of queries.
 */
import type { AttendeeSessionRow, ListedAttendee } from '../db/repositories/participants.js';
import type { RoomRow } from '../db/repositories/rooms.js';
import type { SessionRow } from '../db/repositories/sessions.js';
import { ActorType, ParticipantType } from '../domain/constants.js';
import { isSessionAlive } from '../domain/participants.js';
import { isLoggedInModeratorType, permissionsIn } from '../domain/permissions.js';
import { needsAttendeePin, phoneFieldsFor, roomUsesPins } from '../domain/sip.js';
import type { PublicStatus } from '../domain/user-status.js';

export interface ParticipantRecord {
  roomToken: string;
  inCall: number;
  lastPing: number;
  sessionIds: string[];
  participantType: number;
  attendeeId: number;
  actorId: string;
  actorType: string;
  displayName: string;
  permissions: number;
  attendeePermissions: number;
  attendeePin: string;
  phoneNumber: string;
  callId: string;
  invitedActorId?: string;
  status?: string;
  statusIcon?: string | null;
  statusMessage?: string | null;
  statusClearAt?: number | null;
}

/**
 * The record's keys in the contract's order, optional ones last (as `formatParticipant` adds
 * them): the order the JSON answer is written in (http/ocs/json-bytes.ts).
 */
export const PARTICIPANT_KEYS = [
  'roomToken',
  'inCall',
  'lastPing',
  'sessionIds',
  'participantType',
  'attendeeId',
  'actorId',
  'actorType',
  'displayName',
  'permissions',
  'attendeePermissions',
  'attendeePin',
  'phoneNumber',
  'callId',
  'invitedActorId',
  'status',
  'statusIcon',
  'statusMessage',
  'statusClearAt',
] as const satisfies ReadonlyArray<keyof ParticipantRecord>;

/** One attendee with its live sessions. */
export interface MergedAttendee {
  attendee: ListedAttendee;
  sessions: SessionRow[];
}

export interface MergeResult {
  entries: MergedAttendee[];
  /** Sessions past the kill timeout (to be removed: the holder left long ago). */
  staleSessionIds: number[];
  /** Guests that only had stale sessions or none, nameless and without custom permissions. */
  goneGuestIds: number[];
}

/** Guests kept only for chat names: plain guests without custom permissions. */
function isTransientGuest(a: ListedAttendee): boolean {
  return a.actor_type === ActorType.GUESTS && a.participant_type === ParticipantType.GUEST && (a.permissions === 0 || a.permissions === 1);
}

/**
 * Groups rows by attendee (first-seen order), drops stale sessions, hides guests without a live
 * session (docs/reference/participants.md#joining-and-leaving) and `users` rows whose account is gone.
 */
export function mergeAttendees(rows: AttendeeSessionRow[], now: number, userExists: (id: string) => boolean): MergeResult {
  const byId = new Map<number, MergedAttendee>();
  const staleSessionIds: number[] = [];
  for (const { attendee, session } of rows) {
    let entry = byId.get(attendee.id);
    if (!entry) {
      entry = { attendee, sessions: [] };
      byId.set(attendee.id, entry);
    }
    if (session) {
      if (isSessionAlive(session.last_ping, now)) entry.sessions.push(session);
      else staleSessionIds.push(session.id);
    }
  }
  const entries: MergedAttendee[] = [];
  const goneGuestIds: number[] = [];
  for (const e of byId.values()) {
    const a = e.attendee;
    if (a.actor_type === ActorType.USERS && !userExists(a.actor_id)) continue;
    if (isTransientGuest(a) && e.sessions.length === 0) {
      if (a.display_name === '') goneGuestIds.push(a.id);
      continue;
    }
    entries.push(e);
  }
  return { entries, staleSessionIds, goneGuestIds };
}

/** What formatting needs besides the entry, loaded once per request. */
export interface ParticipantEnv {
  rooms: ReadonlyMap<number, RoomRow>;
  /** The caller's attendee rows by room id (moderator rights and "own row" are per room). */
  viewers: ReadonlyMap<number, ListedAttendee>;
  serverDefault: number;
  sipConfigured: boolean;
  /** SIP dial-out is possible (phone call ids are shown). */
  dialOutEnabled: boolean;
  /** The caller is in `sip_bridge_groups` (may configure SIP; sees phone numbers). */
  inSipBridgeGroups: boolean;
  /** users: account display names. */
  userNames: ReadonlyMap<string, string>;
  /** Pins generated in this request (attendee id → pin). */
  newPins: ReadonlyMap<number, string>;
  /** Statuses when they were requested and allowed; users absent from it read offline. */
  statuses?: ReadonlyMap<string, PublicStatus>;
}

/** The viewer sees PINs, e-mail addresses and phone details: owners/moderators, or on their own row. */
function privileged(viewer: ListedAttendee | undefined, a: ListedAttendee): boolean {
  if (!viewer) return false;
  return isLoggedInModeratorType(viewer.participant_type) || viewer.id === a.id;
}

export function formatParticipant(e: MergedAttendee, env: ParticipantEnv): ParticipantRecord {
  const a = e.attendee;
  const room = env.rooms.get(a.room_id)!;
  const viewer = env.viewers.get(a.room_id);
  const canSee = privileged(viewer, a);
  let inCall = 0;
  let lastPing = 0;
  for (const s of e.sessions) {
    inCall |= s.in_call;
    lastPing = Math.max(lastPing, s.last_ping);
  }
  let displayName = a.display_name;
  if (a.actor_type === ActorType.USERS && displayName === '') displayName = env.userNames.get(a.actor_id) || a.actor_id; // a user without a name is shown by id, as Nextcloud does
  const pin = env.newPins.get(a.id) ?? a.pin ?? '';
  const sipOn = roomUsesPins(env.sipConfigured, room);
  const phone =
    a.actor_type === ActorType.PHONES
      ? phoneFieldsFor(a, {
          sipConfigured: env.sipConfigured,
          loggedInModerator: viewer !== undefined && isLoggedInModeratorType(viewer.participant_type),
          inSipBridgeGroups: env.inSipBridgeGroups,
          dialOutEnabled: env.dialOutEnabled,
        })
      : { phoneNumber: '', callId: '' };
  const record: ParticipantRecord = {
    roomToken: room.token,
    inCall,
    lastPing,
    sessionIds: e.sessions.map((s) => s.session_id),
    participantType: a.participant_type,
    attendeeId: a.id,
    actorId: a.actor_id,
    actorType: a.actor_type,
    displayName,
    permissions: permissionsIn(room, a, env.serverDefault),
    attendeePermissions: a.permissions,
    attendeePin: sipOn && canSee ? pin : '',
    phoneNumber: phone.phoneNumber,
    callId: phone.callId,
  };
  if (a.actor_type === ActorType.EMAILS && canSee) record.invitedActorId = a.invited_cloud_id ?? '';
  if (env.statuses && a.actor_type === ActorType.USERS) {
    const s = env.statuses.get(a.actor_id);
    record.status = s?.status ?? 'offline';
    record.statusIcon = s?.icon ?? null;
    record.statusMessage = s?.message ?? null;
    record.statusClearAt = s?.clearAt ?? null;
  }
  return record;
}

/** Attendees whose PIN must be generated now: shown to this viewer, SIP on, users/emails without one. */
export function pinsNeeded(entries: MergedAttendee[], env: Pick<ParticipantEnv, 'rooms' | 'viewers' | 'sipConfigured'>): ListedAttendee[] {
  if (!env.sipConfigured) return [];
  return entries
    .map((e) => e.attendee)
    .filter((a) => {
      const room = env.rooms.get(a.room_id)!;
      return needsAttendeePin(true, room, a) && privileged(env.viewers.get(a.room_id), a);
    });
}
