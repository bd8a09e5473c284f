/**
 * Permission math and "who may" rules for conversations, as pure functions
 * (docs/reference/participants.md#effective-permissions-and-call-start, docs/reference/conversations.md#the-conversation-record participant view; docs/reference/constants.md#permissions, docs/reference/constants.md#calls-and-recording).
 * No I/O: callers pass the room, the attendee and the app-config values they need.
 */
import {
  Permission,
  ParticipantType,
  PERMISSIONS_MAX_CUSTOM,
  PERMISSIONS_MAX_DEFAULT,
  PERMISSIONS_SERVER_DEFAULT,
  RoomType,
  StartCalls,
  ActorType,
} from './constants.js';

/** Owner, moderator and guest moderator: Talk's "has moderator permissions" (SQL `in` lists use it too). */
export const MODERATOR_TYPES: readonly number[] = Object.freeze([ParticipantType.OWNER, ParticipantType.MODERATOR, ParticipantType.GUEST_MODERATOR]);

/** Owner and moderator, not guest moderator: Talk's "logged-in moderator". */
export const LOGGED_IN_MODERATOR_TYPES: readonly number[] = Object.freeze([ParticipantType.OWNER, ParticipantType.MODERATOR]);

/** Guest, self-joined user, guest moderator: attendees that exist only while a conversation is public. */
export const PUBLIC_ONLY_TYPES: readonly number[] = Object.freeze([ParticipantType.GUEST, ParticipantType.USER_SELF_JOINED, ParticipantType.GUEST_MODERATOR]);

/** Owner, moderator or guest moderator (Talk's "has moderator permissions"). */
export function isModeratorType(participantType: number): boolean {
  return MODERATOR_TYPES.includes(participantType);
}

/** Owner or moderator, but not a guest moderator (Talk's "logged-in moderator"). */
export function isLoggedInModeratorType(participantType: number): boolean {
  return LOGGED_IN_MODERATOR_TYPES.includes(participantType);
}

/** Guest or guest moderator. */
export function isGuestType(participantType: number): boolean {
  return participantType === ParticipantType.GUEST || participantType === ParticipantType.GUEST_MODERATOR;
}

/** True when the value carries the Custom bit, i.e. it is explicit rather than "take the next level". */
export function isCustom(permissions: number): boolean {
  return (permissions & Permission.CUSTOM) === Permission.CUSTOM;
}

/**
 * Normalises a permission value to store: 0 stays 0 (= default, take the next level); any other
 * value gets the Custom bit (contract: "when not 0 the Custom permission 1 is always added").
 */
export function withCustomBit(permissions: number): number {
  return permissions === 0 ? 0 : permissions | Permission.CUSTOM;
}

/** True for a value a client may send as permissions (0..511, docs/reference/constants.md#permissions). */
export function isValidPermissionValue(permissions: number): boolean {
  return Number.isInteger(permissions) && permissions >= 0 && permissions <= PERMISSIONS_MAX_CUSTOM;
}

export function hasPermission(effective: number, bit: number): boolean {
  return (effective & bit) === bit;
}

/**
 * The server default from app config `default_permissions`: its int value when the stored string is
 * non-empty (clamped to 0..511), else 246.
 */
export function serverDefaultPermissions(configValue: string | undefined): number {
  const v = (configValue ?? '').trim();
  if (v === '' || !/^-?\d+$/.test(v)) return PERMISSIONS_SERVER_DEFAULT;
  return Math.min(PERMISSIONS_MAX_CUSTOM, Math.max(0, Number(v)));
}

export interface PermissionChain {
  participantType: number;
  /** attendees.permissions */
  attendeePermissions: number;
  /** rooms.call_permissions (T17 level; 0 when unused) */
  callPermissions: number;
  /** rooms.default_permissions */
  defaultPermissions: number;
  /** The resolved server default (see serverDefaultPermissions). */
  serverDefault: number;
}

/**
 * Effective permissions (contract Participant.permissions; docs/reference/participants.md#effective-permissions-and-call-start): the first
 * non-zero of attendee, call, room default, server default; moderators (1, 2, 6) always get 254.
 */
export function effectivePermissions(c: PermissionChain): number {
  if (isModeratorType(c.participantType)) return PERMISSIONS_MAX_DEFAULT;
  for (const level of [c.attendeePermissions, c.callPermissions, c.defaultPermissions]) {
    if (level !== 0) return level;
  }
  return c.serverDefault;
}

/** effectivePermissions of an attendee row in its room row (the chain as stored). */
export function permissionsIn(
  room: { call_permissions: number; default_permissions: number },
  attendee: { participant_type: number; permissions: number },
  serverDefault: number,
): number {
  return effectivePermissions({
    participantType: attendee.participant_type,
    attendeePermissions: attendee.permissions,
    callPermissions: room.call_permissions,
    defaultPermissions: room.default_permissions,
    serverDefault,
  });
}

export interface StartCallInput {
  roomType: number;
  participantType: number;
  actorType: string;
  effectivePermissions: number;
  /** app config start_calls (0 everyone, 1 users, 2 moderators, 3 nobody) */
  startCalls: number;
  /** app config start_calls_groups (empty = everyone) */
  startCallsGroups: string[];
  /** Whether the caller (a user) is in one of startCallsGroups; ignored when the list is empty. */
  inStartCallsGroups: boolean;
}

/** canStartCall (docs/reference/participants.md#effective-permissions-and-call-start), checked in Talk's order. */
export function canStartCall(i: StartCallInput): boolean {
  if (i.roomType === RoomType.NOTE_TO_SELF) return false;
  if (i.startCalls === StartCalls.NOBODY) return false;
  if (!hasPermission(i.effectivePermissions, Permission.START_CALL)) return false;
  if (i.startCallsGroups.length > 0) {
    if (i.actorType !== ActorType.USERS) return false;
    if (!i.inStartCallsGroups) return false;
  }
  switch (i.startCalls) {
    case StartCalls.EVERYONE:
      return true;
    case StartCalls.USERS:
      return i.participantType !== ParticipantType.GUEST;
    case StartCalls.MODERATORS:
      return isModeratorType(i.participantType);
    default:
      return false;
  }
}

export interface LeaveDeleteInput {
  roomType: number;
  participantType: number;
  actorType: string;
  /** app config delete_one_to_one_conversations */
  deleteOneToOne: boolean;
}

/** One-to-one or former one-to-one. */
export function isOneToOneKind(roomType: number): boolean {
  return roomType === RoomType.ONE_TO_ONE || roomType === RoomType.ONE_TO_ONE_FORMER;
}

/**
 * canDeleteConversation (contract: "not without moderator permissions, not for one-to-one"):
 * users only; owner or moderator; one-to-one only when delete_one_to_one_conversations is on.
 */
export function canDeleteConversation(i: LeaveDeleteInput): boolean {
  if (i.actorType !== ActorType.USERS) return false;
  if (isOneToOneKind(i.roomType)) return i.deleteOneToOne;
  return isLoggedInModeratorType(i.participantType);
}

/**
 * canLeaveConversation: users only; not note-to-self; not one-to-one when
 * delete_one_to_one_conversations is on (leaving would delete it for both).
 */
export function canLeaveConversation(i: LeaveDeleteInput): boolean {
  if (i.actorType !== ActorType.USERS) return false;
  if (i.roomType === RoomType.NOTE_TO_SELF) return false;
  if (isOneToOneKind(i.roomType) && i.deleteOneToOne) return false;
  return true;
}

/** Whether DELETE /room/{token} is allowed for this conversation type (400 `type` otherwise). */
export function conversationTypeAllowsDelete(roomType: number, deleteOneToOne: boolean): boolean {
  return !isOneToOneKind(roomType) || deleteOneToOne;
}

/**
 * Whether the room's lobby timer has passed (docs/reference/conversations.md#timers-and-jobs): the lobby then counts as
 * off, and is lifted (saved, with its system message) lazily by the first reader.
 */
export function lobbyTimerReached(room: { lobby_timer: number }, now: number): boolean {
  return room.lobby_timer > 0 && room.lobby_timer < now;
}

/** The room's lobby state at `now`: off once the timer has passed, even before it is lifted. */
export function lobbyStateAt(room: { lobby_state: number; lobby_timer: number }, now: number): number {
  return lobbyTimerReached(room, now) ? 0 : room.lobby_state;
}

/** The lobby holds this participant back: lobby on, not a moderator, no lobby-ignore bit. */
export function heldInLobby(lobbyState: number, participantType: number, effective: number): boolean {
  return lobbyState !== 0 && !isModeratorType(participantType) && !hasPermission(effective, Permission.LOBBY_IGNORE);
}
