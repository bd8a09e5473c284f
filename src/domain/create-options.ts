/**
 * The settings Talk's current `POST /room` accepts besides type and name (docs/reference/conversations.md#creation
 * "conversation-creation-all"; docs/reference/conversations.md#creation LATEST): each is optional, each is checked as
 * its own endpoint checks it (domain/room-settings.ts), and a refusal names Talk's create-time
 * reason (`read-only`, `listable`, `lobby`, ...). Pure: the caller hashes the password and
 * writes the patch in the creating transaction.
 */
import { DESCRIPTION_MAX, LobbyState, ListableScope, ReadOnlyState, RoomType, SipState } from './constants.js';
import { withCustomBit } from './permissions.js';
import { LOBBY_TIMER_MAX, MESSAGE_EXPIRATION_MAX, isGroupOrPublic, permissionsProblem } from './room-settings.js';

/** The conversation's columns these options set (written with the new row). */
export interface CreatePatch {
  read_only?: number;
  listable?: number;
  message_expiration?: number;
  lobby_state?: number;
  lobby_timer?: number;
  sip_enabled?: number;
  default_permissions?: number;
  recording_consent?: number;
  mention_permissions?: number;
  description?: string;
}

export interface CreateOptions {
  password?: string;
  readOnly?: number;
  listable?: number;
  messageExpiration?: number;
  lobbyState?: number;
  lobbyTimer?: number;
  sipEnabled?: number;
  permissions?: number;
  recordingConsent?: number;
  mentionPermissions?: number;
  description?: string;
  emoji?: string;
  avatarColor?: string;
}

/** What the caller may do that the options depend on (SIP needs the bridge and the group rule). */
export interface CreateOptionRights {
  sipConfigured: boolean;
  /** The caller is in `sip_bridge_groups` (everyone when the list is empty). */
  sipGroupMember: boolean;
  forcePasswords: boolean;
  /** App config `force_message_expiration` when set: the expiration every new conversation gets. */
  forcedMessageExpiration?: number;
}

export interface CreateOptionsProblem {
  error: string;
  message: string;
  /** 403 when the caller may not do it (insufficient role, contract), else 400. */
  status?: 403;
}

const oneOf = (value: number, set: Record<string, number>) => (Object.values(set) as number[]).includes(value);

/** A colour as Talk's emoji avatars take it: six hex digits, no `#`. */
export const AVATAR_COLOR = /^[0-9a-fA-F]{6}$/;

/**
 * The room columns the options set for a conversation of `type` (after the breakout type
 * overwrite), or the first refusal in Talk's order. The password is returned unhashed.
 */
export function createOptionsPatch(
  type: number,
  o: CreateOptions,
  rights: CreateOptionRights,
): { patch: CreatePatch; password: string; avatar?: { emoji: string; color: string } } | CreateOptionsProblem {
  const patch: CreatePatch = {};
  // Talk's RoomController::createRoom empties the password of a conversation that is not public:
  // it is ignored, not refused.
  const password = type === RoomType.PUBLIC ? (o.password ?? '') : '';
  // force_passwords: a public conversation is never created open (docs/reference/conversations.md#creation).
  if (type === RoomType.PUBLIC && password === '' && rights.forcePasswords) return { error: 'password', message: 'Password needs to be set' };
  if (o.readOnly !== undefined) {
    if (!oneOf(o.readOnly, ReadOnlyState)) return { error: 'read-only', message: 'readOnly must be 0 or 1' };
    patch.read_only = o.readOnly;
  }
  if (o.listable !== undefined) {
    if (!oneOf(o.listable, ListableScope)) return { error: 'listable', message: 'listable must be 0, 1 or 2' };
    patch.listable = o.listable;
  }
  if (rights.forcedMessageExpiration !== undefined) {
    // Talk's priority order: a forced value wins over the client's (which is not looked at).
    patch.message_expiration = rights.forcedMessageExpiration;
  } else if (o.messageExpiration !== undefined) {
    if (o.messageExpiration < 0 || o.messageExpiration > MESSAGE_EXPIRATION_MAX)
      return { error: 'message-expiration', message: 'messageExpiration must be 0 or a positive number of seconds' };
    patch.message_expiration = o.messageExpiration;
  }
  if (o.lobbyState !== undefined) {
    if (!oneOf(o.lobbyState, LobbyState) || !isGroupOrPublic(type)) return { error: 'lobby', message: 'lobbyState must be 0 or 1' };
    patch.lobby_state = o.lobbyState;
  }
  if (o.lobbyTimer !== undefined) {
    if (o.lobbyTimer < 0 || o.lobbyTimer > LOBBY_TIMER_MAX) return { error: 'lobby-timer', message: 'lobbyTimer must be a unix time or 0' };
    // A timer only means something while the lobby is on (PUT webinar/lobby stores it with the state).
    if ((patch.lobby_state ?? LobbyState.NONE) === LobbyState.NON_MODERATORS) patch.lobby_timer = o.lobbyTimer;
  }
  if (o.sipEnabled !== undefined) {
    if (!oneOf(o.sipEnabled, SipState)) return { error: 'sip-enabled', message: 'sipEnabled must be 0, 1 or 2' };
    if (o.sipEnabled !== SipState.DISABLED && !rights.sipConfigured) return { error: 'sip-enabled', message: 'SIP is not configured on this server' };
    if (o.sipEnabled !== SipState.DISABLED && !rights.sipGroupMember)
      return { error: 'sip-enabled', message: 'You are not allowed to enable SIP', status: 403 };
    patch.sip_enabled = o.sipEnabled;
  }
  if (o.permissions !== undefined) {
    const facts = { type, description: '', object_type: '', breakout_room_mode: 0 };
    if (permissionsProblem(facts, 'default', o.permissions) !== null) return { error: 'permissions', message: 'permissions must be 0 to 511' };
    patch.default_permissions = withCustomBit(o.permissions);
  }
  if (o.recordingConsent !== undefined) {
    if (o.recordingConsent !== 0 && o.recordingConsent !== 1) return { error: 'recording-consent', message: 'recordingConsent must be 0 or 1' };
    patch.recording_consent = o.recordingConsent;
  }
  if (o.mentionPermissions !== undefined) {
    if (o.mentionPermissions !== 0 && o.mentionPermissions !== 1) return { error: 'mention-permissions', message: 'mentionPermissions must be 0 or 1' };
    patch.mention_permissions = o.mentionPermissions;
  }
  if (o.description !== undefined) {
    const description = o.description.trim();
    if ([...description].length > DESCRIPTION_MAX) return { error: 'description', message: `description can be at most ${DESCRIPTION_MAX} characters` };
    patch.description = description;
  }
  let avatar: { emoji: string; color: string } | undefined;
  if (o.emoji !== undefined && o.emoji !== '') {
    const color = o.avatarColor ?? '';
    if (!isSingleEmoji(o.emoji) || (color !== '' && !AVATAR_COLOR.test(color)))
      return { error: 'avatar', message: 'emoji must be one emoji and avatarColor six hex digits' };
    avatar = { emoji: o.emoji, color };
  }
  return { patch, password, avatar };
}

/** One user-perceived character that is an emoji (Talk refuses anything longer). */
export function isSingleEmoji(s: string): boolean {
  const segments = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)];
  return segments.length === 1 && /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(s);
}

export function isCreateOptionsProblem(x: unknown): x is CreateOptionsProblem {
  return typeof x === 'object' && x !== null && 'error' in x;
}
