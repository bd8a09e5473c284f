/** Nextcloud Talk constants (docs/reference/constants.md). Every area uses these names, never literals. */

export const RoomType = { ONE_TO_ONE: 1, GROUP: 2, PUBLIC: 3, CHANGELOG: 4, ONE_TO_ONE_FORMER: 5, NOTE_TO_SELF: 6 } as const;

export const ParticipantType = { OWNER: 1, MODERATOR: 2, USER: 3, GUEST: 4, USER_SELF_JOINED: 5, GUEST_MODERATOR: 6 } as const;

export const ActorType = {
  USERS: 'users',
  GUESTS: 'guests',
  EMAILS: 'emails',
  GROUPS: 'groups',
  CIRCLES: 'circles',
  FEDERATED_USERS: 'federated_users',
  PHONES: 'phones',
} as const;

/** Attendees that stand for many users (a group, a team): never readers or callers themselves. */
export const COLLECTIVE_ACTOR_TYPES: readonly string[] = [ActorType.GROUPS, ActorType.CIRCLES];

export const InCallFlag = { DISCONNECTED: 0, IN_CALL: 1, WITH_AUDIO: 2, WITH_VIDEO: 4, WITH_PHONE: 8 } as const;

export const Permission = {
  DEFAULT: 0,
  CUSTOM: 1,
  START_CALL: 2,
  JOIN_CALL: 4,
  LOBBY_IGNORE: 8,
  PUBLISH_AUDIO: 16,
  PUBLISH_VIDEO: 32,
  PUBLISH_SCREEN: 64,
  CHAT: 128,
  /** Add/remove reactions: Talk 24 (NC 34) splits it from CHAT (docs/reference/constants.md#permissions). */
  REACT: 256,
} as const;

/** All bits except CUSTOM. */
export const PERMISSIONS_MAX_DEFAULT = 254;
/**
 * All bits, including REACT: today's Talk clients send up to 511 (docs/reference/constants.md#permissions), so
 * values up to it are accepted and stored.
 */
export const PERMISSIONS_MAX_CUSTOM = 511;
/** Server fallback when app config default_permissions is empty (254 minus lobby-ignore). */
export const PERMISSIONS_SERVER_DEFAULT = 246;

export const NotificationLevel = { DEFAULT: 0, ALWAYS: 1, MENTION: 2, NEVER: 3 } as const;
export const NotificationCalls = { OFF: 0, ON: 1 } as const;
export const LobbyState = { NONE: 0, NON_MODERATORS: 1 } as const;
export const ReadOnlyState = { READ_WRITE: 0, READ_ONLY: 1 } as const;
export const ListableScope = { NONE: 0, USERS: 1, ALL: 2 } as const;
export const SipState = { DISABLED: 0, ENABLED: 1, ENABLED_NO_PIN: 2 } as const;
export const SessionState = { INACTIVE: 0, ACTIVE: 1 } as const;
export const BreakoutMode = { NOT_CONFIGURED: 0, AUTOMATIC: 1, MANUAL: 2, FREE: 3 } as const;
export const BreakoutStatus = { STOPPED: 0, STARTED: 1, ASSISTANCE_REQUESTED: 2 } as const;
export const StartCalls = { EVERYONE: 0, USERS: 1, MODERATORS: 2, NOBODY: 3 } as const;

/** Session liveness (docs/reference/constants.md#sessions). */
export const SESSION_TIMEOUT = 30;
export const SESSION_TIMEOUT_KILL = 100;

export const ROOM_NAME_MAX = 255;
export const DESCRIPTION_MAX = 2000;
/** Route constraint for tokens: anything else is "not found". */
export const TOKEN_PATTERN = /^[a-z0-9]{4,30}$/;
/** Members of this group are "guest app" accounts (listable scope 1 excludes them). */
export const GUEST_APP_GROUP = 'guest_app';
