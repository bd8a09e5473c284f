/**
 * Pure rules of the conversation settings endpoints (contract "Conversations": description,
 * public, read-only, password, permissions, notifications, message expiration, listable, lobby;
 * docs/reference/conversations.md#endpoint-rules gives the order of the checks). Each `...Problem` function returns the
 * `data.error` reason of the first rule the request breaks, in Talk's order, or null.
 */
import {
  DESCRIPTION_MAX,
  LobbyState,
  ListableScope,
  NotificationCalls,
  NotificationLevel,
  PERMISSIONS_MAX_CUSTOM,
  ReadOnlyState,
  RoomType,
} from './constants.js';
import type { AppConfigSnapshot } from '../app-config/snapshot.js';
import { isOneToOneKind } from './permissions.js';

/** The room columns these rules look at. */
export interface RoomFacts {
  type: number;
  description: string;
  object_type: string;
  breakout_room_mode: number;
}

/** Largest message expiration (seconds) the column holds (about 68 years). */
export const MESSAGE_EXPIRATION_MAX = 2_147_483_647;
/** Largest lobby timer accepted (unix seconds, 9999-12-31). */
export const LOBBY_TIMER_MAX = 253_402_300_799;

/** Object types whose conversations may have a lobby (docs/reference/conversations.md#endpoint-rules webinar/lobby, LATEST). */
export const LOBBY_OBJECT_TYPES: readonly string[] = ['', 'room', 'emails', 'event', 'extended_conversation', 'instant_meeting'];

/** Modes of PUT /room/{token}/permissions/{mode} and the room column each writes. */
export const PERMISSION_MODES = { default: 'default_permissions', call: 'call_permissions' } as const;
export type PermissionMode = keyof typeof PERMISSION_MODES;

/** A breakout room: a child conversation of a parent (objectType `room`). */
export function isBreakoutChild(room: RoomFacts): boolean {
  return room.object_type === 'room';
}

/** Group or public: the only kinds with read-only, listing, lobby and SIP. */
export function isGroupOrPublic(type: number): boolean {
  return type === RoomType.GROUP || type === RoomType.PUBLIC;
}

const oneOf = (value: number, set: Record<string, number>) => (Object.values(set) as number[]).includes(value);

/**
 * PUT description with the trimmed text: event rooms first; an unchanged description is then a
 * no-op whatever else holds (null); then the length (at most 2000 characters), then one-to-one
 * (LATEST order).
 */
export function descriptionProblem(room: RoomFacts, trimmed: string): string | null {
  if (room.object_type === 'event') return 'event';
  if (trimmed === room.description) return null;
  if ([...trimmed].length > DESCRIPTION_MAX) return 'value';
  if (isOneToOneKind(room.type)) return 'type';
  return null;
}

/**
 * POST/DELETE public (changing between group and public): only group and public conversations,
 * and neither breakout parents nor breakout children.
 */
export function publicToggleProblem(room: RoomFacts): string | null {
  if (!isGroupOrPublic(room.type)) return 'type';
  if (room.breakout_room_mode !== 0 || isBreakoutChild(room)) return 'breakout-room';
  return null;
}

/**
 * PUT read-only: group and public conversations only (400 `type`), state 0 or 1. The contract's
 * 403 "or conversation not public" is not applied: its own 400 row says group conversations
 * support read-only, and Talk's code and scenarios set it on group conversations
 * (docs/reference/conversations.md#where-the-contract-and-talk-differ; docs/compatibility.md).
 */
export function readOnlyProblem(room: RoomFacts, state: number): string | null {
  if (!isGroupOrPublic(room.type)) return 'type';
  if (!oneOf(state, ReadOnlyState)) return 'value';
  return null;
}

/**
 * PUT listable: group and public only, not breakout rooms, scope 0, 1 or 2. Listing a group
 * conversation is what "open conversations" are, so the contract's 403 "or conversation not
 * public" is not applied (docs/reference/conversations.md#where-the-contract-and-talk-differ; docs/compatibility.md).
 */
export function listableProblem(room: RoomFacts, scope: number): string | null {
  if (!isGroupOrPublic(room.type)) return 'type';
  if (isBreakoutChild(room)) return 'breakout-room';
  if (!oneOf(scope, ListableScope)) return 'value';
  return null;
}

/**
 * PUT mention-permissions (Talk's RoomService::setMentionPermissions): an unchanged value is a
 * no-op before any rule (null); then group or public only, then breakout rooms, then the value
 * (0 everyone may mention @all, 1 moderators only).
 */
export function mentionPermissionsProblem(room: RoomFacts & { mention_permissions: number }, value: number): string | null {
  if (value === room.mention_permissions) return null;
  if (!isGroupOrPublic(room.type)) return 'type';
  if (isBreakoutChild(room)) return 'breakout-room';
  if (value !== 0 && value !== 1) return 'value';
  return null;
}

/**
 * PUT permissions/{mode}: the mode, then conversations that cannot publish permissions
 * (one-to-one, former one-to-one, note-to-self), then breakout rooms, then the value (0..511).
 */
export function permissionsProblem(room: RoomFacts, mode: string, permissions: number): string | null {
  if (!Object.hasOwn(PERMISSION_MODES, mode)) return 'mode';
  if (isOneToOneKind(room.type) || room.type === RoomType.NOTE_TO_SELF) return 'type';
  if (isBreakoutChild(room)) return 'breakout-room';
  if (!Number.isInteger(permissions) || permissions < 0 || permissions > PERMISSIONS_MAX_CUSTOM) return 'value';
  return null;
}

/** App config `force_message_expiration` when it is set (a stored whole number), else undefined. */
export function forcedMessageExpiration(cfg: AppConfigSnapshot): number | undefined {
  const raw = cfg.raw('force_message_expiration')?.trim();
  return raw !== undefined && /^\d{1,10}$/.test(raw) ? Number(raw) : undefined;
}

/**
 * POST message-expiration: not breakout rooms, not former one-to-one, 0 <= seconds <= max. App
 * config `force_message_expiration` applies at creation only, as Talk's presets apply it
 * (docs/reference/capabilities-and-config.md#app-config-keys): moderators may change it later.
 */
export function messageExpirationProblem(room: RoomFacts, seconds: number): string | null {
  if (isBreakoutChild(room)) return 'breakout-room';
  if (room.type === RoomType.ONE_TO_ONE_FORMER) return 'type';
  if (seconds < 0 || seconds > MESSAGE_EXPIRATION_MAX) return 'value';
  return null;
}

/**
 * PUT webinar/lobby: not breakout rooms (their lobby follows the breakout status), group and
 * public only, object types that allow a lobby, state 0 or 1.
 */
export function lobbyProblem(room: RoomFacts, state: number): string | null {
  if (isBreakoutChild(room)) return 'breakout-room';
  if (!isGroupOrPublic(room.type)) return 'type';
  if (!LOBBY_OBJECT_TYPES.includes(room.object_type)) return 'object';
  if (!oneOf(state, LobbyState)) return 'value';
  return null;
}

/** POST notify: 1 always, 2 mentions, 3 never (0 "default" cannot be chosen). */
export function isValidNotificationLevel(level: number): boolean {
  return level !== NotificationLevel.DEFAULT && oneOf(level, NotificationLevel);
}

/** POST notify-calls: 0 off, 1 on. */
export function isValidCallNotificationLevel(level: number): boolean {
  return oneOf(level, NotificationCalls);
}

/** Longest default name before it is cut to DEFAULT_NAME_KEEP characters and "…" (Talk's 64/60). */
const DEFAULT_NAME_MAX = 64;
const DEFAULT_NAME_KEEP = 60;

/**
 * The name Talk computes and saves for a group or public conversation without one
 * (docs/reference/conversations.md#default-names): its users' display names joined with ", ", cut to 60
 * characters (code points) and "…" when longer than 64.
 */
export function defaultRoomName(displayNames: string[]): string {
  const name = displayNames.join(', ');
  const chars = Array.from(name);
  return chars.length > DEFAULT_NAME_MAX ? chars.slice(0, DEFAULT_NAME_KEEP).join('') + '…' : name;
}
