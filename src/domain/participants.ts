/**
 * Pure participant rules (contract "Participants" and "States and transitions";
 * docs/reference/participants.md#leaving-a-conversation, docs/reference/participants.md#sessions-and-calls): role transitions, the permission methods, who may leave, which
 * sessions count as alive, and the shapes of generated identifiers. No I/O.
 */
import { randomString } from './passwords.js';
import { ActorType, ParticipantType, Permission, RoomType, SESSION_TIMEOUT_KILL } from './constants.js';
import { isLoggedInModeratorType, isOneToOneKind } from './permissions.js';

/** Contract limit: session ids are 512-character strings. */
export const SESSION_ID_LENGTH = 512;
const SESSION_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * A new session id of exactly 512 characters (contract Limits). With a Talk tab id (64
 * alphanumerics) the id ends in `$<tabId>`, as Talk appends it.
 */
export function newSessionId(tabId = ''): string {
  if (tabId) return randomString(SESSION_ID_LENGTH - tabId.length - 1, SESSION_ALPHABET) + '$' + tabId;
  return randomString(SESSION_ID_LENGTH, SESSION_ALPHABET);
}

/** A session not pinged for 100 s is gone (docs/reference/constants.md#sessions). */
export function isSessionAlive(lastPing: number, now: number): boolean {
  return lastPing > now - SESSION_TIMEOUT_KILL;
}

/**
 * Contract Limits, "conflicting session rule": a session whose last ping is older than 60 s, or
 * older than 40 s when not in a call, may be replaced without asking (no 409).
 */
export function mayReplaceWithoutAsking(lastPing: number, inCall: number, now: number): boolean {
  return lastPing < now - 60 || (inCall === 0 && lastPing < now - 40);
}

/** Conversation kinds without participant management nor publishing permissions (one-to-one, former one-to-one, note-to-self). */
export function isFixedMembershipRoom(roomType: number): boolean {
  return roomType === RoomType.ONE_TO_ONE || roomType === RoomType.ONE_TO_ONE_FORMER || roomType === RoomType.NOTE_TO_SELF;
}

export type RoleChange = { ok: true; type: number } | { ok: false; status: 400 | 403; error: string; message: string };

/**
 * Promotion (contract state table): 3 → 2, 4 → 6. An owner is 403 (contract), anything else 400
 * (the contract's "participant is not a normal user (type 3) or normal guest (type 4)").
 */
export function promotion(type: number): RoleChange {
  if (type === ParticipantType.USER) return { ok: true, type: ParticipantType.MODERATOR };
  if (type === ParticipantType.GUEST) return { ok: true, type: ParticipantType.GUEST_MODERATOR };
  // An owner is already a moderator: Talk's type check answers first (400), before any owner rule.
  return { ok: false, status: 400, error: 'type', message: 'Only normal users (type 3) and guests (type 4) can be promoted' };
}

/** Demotion (contract state table): 2 → 3, 6 → 4; anything else 400. */
export function demotion(type: number): RoleChange {
  if (type === ParticipantType.MODERATOR) return { ok: true, type: ParticipantType.USER };
  if (type === ParticipantType.GUEST_MODERATOR) return { ok: true, type: ParticipantType.GUEST };
  return { ok: false, status: 400, error: 'type', message: 'Only moderators (type 2) and guest moderators (type 6) can be demoted' };
}

export const PERMISSION_METHODS = ['set', 'add', 'remove'] as const;
export type PermissionMethod = (typeof PERMISSION_METHODS)[number];

export function isPermissionMethod(m: string): m is PermissionMethod {
  return (PERMISSION_METHODS as readonly string[]).includes(m);
}

/** Contract fallbacks for add/remove when nothing else is set. */
export const SEED_MODERATOR = 126;
export const SEED_PARTICIPANT = 118;

/**
 * New attendee permissions (contract, PUT attendees/permissions): `set` replaces; `add`/`remove`
 * start from the current value, or when it is 0 from the call permissions, else the
 * conversation default, else 126 (moderators) / 118; Custom (1) is added to any non-zero result.
 */
export function applyPermissionMethod(
  method: PermissionMethod,
  value: number,
  current: { attendee: number; call: number; conversationDefault: number; moderator: boolean },
): number {
  let result: number;
  if (method === 'set') {
    result = value;
  } else {
    const base =
      current.attendee !== 0
        ? current.attendee
        : current.call !== 0
          ? current.call
          : current.conversationDefault !== 0
            ? current.conversationDefault
            : current.moderator
              ? SEED_MODERATOR
              : SEED_PARTICIPANT;
    result = method === 'add' ? base | value : base & ~value;
  }
  return result === 0 ? 0 : result | Permission.CUSTOM;
}

/** "Users" for the leave rules: owners, moderators and users of any actor type but groups/circles. */
export interface MemberCount {
  /** Attendees of type 1, 2 or 3 that are not groups or circles. */
  users: number;
  /** Attendees of type 1 or 2. */
  moderators: number;
}

type MemberRow = { id: number; actor_type: string; participant_type: number };

/** Counts attendees for the leave rules (groups and teams are not members who can moderate). */
export function memberCount(attendees: MemberRow[]): MemberCount {
  let users = 0;
  let moderators = 0;
  for (const a of attendees) {
    if (a.actor_type === ActorType.GROUPS || a.actor_type === ActorType.CIRCLES) continue;
    const t = a.participant_type;
    if (t === ParticipantType.OWNER || t === ParticipantType.MODERATOR || t === ParticipantType.USER) users++;
    if (isLoggedInModeratorType(t)) moderators++;
  }
  return { users, moderators };
}

/**
 * Contract (DELETE attendees, participants/self, moderators): "no other moderators or owners
 * would be left". True when the change takes away a logged-in moderator or owner and users
 * remain, none of them one. `removed` leave the room; `demoted` stay as normal users.
 */
export function lastModeratorWouldGo(attendees: MemberRow[], change: { removed?: number[]; demoted?: number[] }): boolean {
  const removed = new Set(change.removed ?? []);
  const demoted = new Set(change.demoted ?? []);
  const touched = attendees.filter((a) => removed.has(a.id) || demoted.has(a.id));
  if (!touched.some((a) => isLoggedInModeratorType(a.participant_type))) return false;
  const after = attendees.filter((a) => !removed.has(a.id)).map((a) => (demoted.has(a.id) ? { ...a, participant_type: ParticipantType.USER } : a));
  const counts = memberCount(after);
  return counts.users > 0 && counts.moderators === 0;
}

export type LeaveOutcome = 'last-moderator' | 'delete-room' | 'remove';

/**
 * DELETE participants/self (docs/reference/participants.md#leaving-a-conversation): the only moderator may not leave while
 * others remain (400 `last-moderator`); the last user of a normal conversation deletes it; with
 * `delete_one_to_one_conversations` leaving a one-to-one deletes it; otherwise the caller goes.
 */
export function leaveOutcome(i: { participantType: number; roomType: number; objectType: string; counts: MemberCount; deleteOneToOne: boolean }): LeaveOutcome {
  const t = i.participantType;
  if (isLoggedInModeratorType(t) && i.counts.users > 1 && i.counts.moderators === 1) return 'last-moderator';
  const countsAsUser = t === ParticipantType.OWNER || t === ParticipantType.MODERATOR || t === ParticipantType.USER;
  if (i.roomType !== RoomType.CHANGELOG && i.objectType !== 'file' && i.counts.users === 1 && countsAsUser) return 'delete-room';
  if (i.deleteOneToOne && isOneToOneKind(i.roomType)) return 'delete-room';
  return 'remove';
}
