/**
 * The conversation record (contract "Conversation" table + docs/reference/conversations.md#the-conversation-record extras),
 * computed as docs/reference/conversations.md#the-conversation-record describes: the participant view, the two non-participant
 * views (listable / restricted) and the lobby effect.
 *
 * Pure: `formatConversation` maps loaded rows plus a FormatEnv to the record. Loading what a record
 * needs beyond its rows (other users' names, group membership, statuses) and the lazy repairs
 * (expired lobby timers, default names, PINs) happen in services/conversations/conversation-view.ts.
 */
import { createHash } from 'node:crypto';
import type { ConversationAttendeeRow } from '../db/repositories/attendees.js';
import type { RoomChatPreload, RoomRow } from '../db/repositories/rooms.js';
import type { SessionRow } from '../db/repositories/sessions.js';
import { ActorType, NotificationLevel, ParticipantType, RoomType, SESSION_TIMEOUT, SESSION_TIMEOUT_KILL } from '../domain/constants.js';
import {
  canDeleteConversation,
  canLeaveConversation,
  canStartCall,
  heldInLobby,
  isLoggedInModeratorType,
  isOneToOneKind,
  permissionsIn,
} from '../domain/permissions.js';
import { isGroupOrPublic } from '../domain/room-settings.js';
import { oneToOneUserIds, otherUserId } from '../domain/one-to-one.js';
import { leadingEmoji } from '../domain/emoji.js';
import { isSipCompatibleToken } from '../domain/tokens.js';
import type { AppConfigSnapshot } from '../app-config/snapshot.js';
import type { ConversationRecordShape } from './conversation-schema.js';
import { actorGetsPin, roomUsesPins } from '../domain/sip.js';
import type { ChatMessageRead } from '../db/repositories/chat-messages.js';
import { UNREAD_FIRST_MESSAGE } from '../domain/chat.js';
import { formatChatMessage } from './chat-message.js';
import { formatProxiedMessage } from './federation.js';
import type { FederationLastMessageRow } from '../db/repositories/federation-sync.js';

/** A conversation's chat as the caller sees it, batch-loaded by ConversationViewService. */
export interface RoomChatState {
  unread: number;
  lastMessage?: ChatMessageRead;
  /** A conversation kept here for another server's: what the host's MESSAGE_POSTED left (docs/federation.md "Keeping the conversation current"). */
  proxied?: {
    lastMessage?: FederationLastMessageRow;
    unreadMention: boolean;
    unreadMentionDirect: boolean;
    /** The host's message id the caller read up to (0: none known). */
    lastReadMessage: number;
  };
}

/** One conversation as seen by the caller. */
export interface ConversationView {
  room: RoomRow;
  /** The caller's attendee row (the columns a record reads); absent for non-participants. */
  attendee?: ConversationAttendeeRow;
  /** The caller's own session in this conversation (participantFlags, lastPing, sessionId). */
  session?: SessionRow;
  /**
   * Non-participant record that shows the listable fields with the room name as displayName
   * (SIP-bridge requests, breakout rooms listed for a moderator who is not in them).
   */
  forceName?: boolean;
  /** The room's chat state when it was read with the room row (the list, GET /room/{token}). */
  chatPreload?: RoomChatPreload;
}

export interface PresentOptions {
  /** GET /room includeStatus, GET /room/{token}: add the other user's status to one-to-one records. */
  includeStatus?: boolean;
  /** GET /room includeLastMessage (default true): false omits `lastMessage`. */
  includeLastMessage?: boolean;
  /**
   * Filled with the last second (epoch) at which the records stay exactly as returned unless
   * the database changes: the passage of a lobby timer, a session's keep-alive or expiry, a user
   * status expiring all change a record without a write (caches of rendered records use it).
   */
  validity?: { until: number };
}

export interface UserStatus {
  status: string;
  icon: string | null;
  message: string | null;
  clearAt: number | null;
  /** The last second at which this status still reads the same (no database change needed). */
  stableUntil?: number;
}

/** The record (API v4): the shape `ConversationSchema` describes (one definition of the fields). */
export type ConversationRecord = ConversationRecordShape;

/** Everything `formatConversation` needs besides the view, loaded once per request. */
export interface FormatEnv {
  now: number;
  /** The logged-in caller, if any. */
  userId?: string;
  cfg: AppConfigSnapshot;
  sipConfigured: boolean;
  /** Display names of the other users of one-to-one conversations. */
  userNames: ReadonlyMap<string, string>;
  inStartCallsGroups: boolean;
  inSipBridgeGroups: boolean;
  statuses: ReadonlyMap<string, UserStatus>;
  /** PINs generated during this call (attendee id → pin). */
  newPins: ReadonlyMap<number, string>;
  /** lastCommonReadMessage per room id, for rooms where the caller's read privacy is public. */
  commonRead: ReadonlyMap<number, number>;
  includeStatus: boolean;
  includeLastMessage: boolean;
  chat?: ReadonlyMap<number, RoomChatState>;
  /** Read from the config once per request, not per record: */
  serverDefault: number;
  recordingAvailable: boolean;
  startCalls: number;
  startCallsGroups: string[];
  deleteOneToOne: boolean;
}

const PRIVATE_CONVERSATION = 'Private conversation';

/** Default avatar icon per conversation kind (docs/reference/conversations.md#the-conversation-record avatarVersion). */
function defaultAvatarPath(room: RoomRow): string {
  let kind = 'group';
  if (room.type === RoomType.CHANGELOG) return 'img/changelog.svg';
  if (room.object_type === 'file') kind = 'text';
  else if (room.object_type === 'share:password') kind = 'password';
  else if (room.object_type === 'emails') kind = 'mail';
  else if (room.object_type.startsWith('phone')) kind = 'phone';
  else if (room.object_type === 'event') kind = 'event';
  else if (room.type === RoomType.PUBLIC) kind = 'public';
  else if (isOneToOneKind(room.type)) kind = 'user';
  return `img/icon-conversation-${kind}-bright.svg`;
}

/** md5 stems of the few default icon paths, computed once each. */
const defaultAvatarVersions = new Map<string, string>();

/** avatarVersion: the custom avatar's stem, else the first 8 hex digits of md5(default icon path). */
export function avatarVersion(room: RoomRow): string {
  if (room.avatar !== '') return room.avatar.split('.')[0];
  // A name starting with an emoji is shown as that emoji: the version follows it (docs/reference/conversations.md#avatars).
  const emoji = room.type === RoomType.ONE_TO_ONE ? undefined : leadingEmoji(room.name);
  if (emoji !== undefined) return createHash('md5').update(`emoji:${emoji}`).digest('hex').slice(0, 8);
  const path = defaultAvatarPath(room);
  let version = defaultAvatarVersions.get(path);
  if (version === undefined) defaultAvatarVersions.set(path, (version = createHash('md5').update(path).digest('hex').slice(0, 8)));
  return version;
}

/** The URL of a conversation's avatar, versioned (the `icon-url` of its rich objects, docs/reference/chat.md#rich-objects). */
export function roomAvatarUrl(baseUrl: string, room: RoomRow): string {
  return `${baseUrl}/ocs/v2.php/apps/spreed/api/v1/room/${room.token}/avatar?v=${avatarVersion(room)}`;
}

/** recordingConsent: the room's value when the admin chose "optional" (2), else the global one. */
function recordingConsent(room: RoomRow, env: FormatEnv): number {
  if (!env.recordingAvailable) return 0;
  const global = env.cfg.int('recording_consent');
  return global === 2 ? room.recording_consent : global;
}

/** notificationLevel when the attendee kept the default (docs/reference/constants.md#notification-levels). */
function resolveNotificationLevel(stored: number, room: RoomRow, attendee: ConversationAttendeeRow, cfg: AppConfigSnapshot): number {
  if (stored !== NotificationLevel.DEFAULT) return stored;
  if (attendee.actor_type === ActorType.GUESTS || attendee.actor_type === ActorType.EMAILS) return NotificationLevel.NEVER;
  if (attendee.participant_type === ParticipantType.GUEST || attendee.participant_type === ParticipantType.GUEST_MODERATOR) {
    return NotificationLevel.NEVER;
  }
  if (isOneToOneKind(room.type)) return NotificationLevel.ALWAYS;
  const configured = cfg.int('default_group_notification');
  return configured === 0 ? NotificationLevel.MENTION : configured;
}

/** displayName resolution (docs/reference/conversations.md#the-conversation-record, Manager::resolveRoomDisplayName). */
function resolveDisplayName(view: ConversationView, env: FormatEnv, listableForCaller: boolean): string {
  const { room, attendee } = view;
  if (room.object_type === 'share:password') return `Password request: ${room.name}`;
  if (room.type === RoomType.CHANGELOG) return 'Talk updates ✅';
  if (env.userId === undefined && !view.forceName && room.type !== RoomType.PUBLIC) return PRIVATE_CONVERSATION;
  if (isOneToOneKind(room.type)) {
    if (env.userId === undefined) return PRIVATE_CONVERSATION;
    const ids = oneToOneUserIds(room);
    if (ids) {
      if (!ids.includes(env.userId)) return PRIVATE_CONVERSATION;
      const other = ids.find((id) => id !== env.userId) ?? env.userId;
      return env.userNames.get(other) || other;
    }
    // A former one-to-one is named after the user who went (docs/reference/conversations.md#former-one-to-one-conversations).
    if (room.type === RoomType.ONE_TO_ONE_FORMER) return room.name;
    return env.userNames.get(room.name) || `Deleted user (${room.name})`;
  }
  if (view.forceName) return room.name;
  if (!listableForCaller && !attendee) return PRIVATE_CONVERSATION;
  return room.name;
}

function defaults(room: RoomRow, env: FormatEnv): ConversationRecord {
  return {
    id: room.id,
    token: room.token,
    type: room.type,
    name: '',
    displayName: '',
    objectType: '',
    objectId: '',
    participantType: ParticipantType.GUEST,
    participantFlags: 0,
    readOnly: 0,
    hasCall: false,
    callStartTime: 0,
    callRecording: 0,
    canStartCall: false,
    lastActivity: 0,
    lastReadMessage: 0,
    unreadMessages: 0,
    unreadMention: false,
    unreadMentionDirect: false,
    isFavorite: false,
    canLeaveConversation: false,
    canDeleteConversation: false,
    notificationLevel: NotificationLevel.NEVER,
    notificationCalls: 0,
    lobbyState: 0,
    lobbyTimer: 0,
    lastPing: 0,
    sessionId: '0',
    hasPassword: room.password !== '',
    sipEnabled: 0,
    actorType: '',
    actorId: '',
    attendeeId: 0,
    permissions: 1,
    attendeePermissions: 1,
    callPermissions: 1,
    defaultPermissions: 1,
    canEnableSIP: false,
    attendeePin: '',
    description: '',
    lastCommonReadMessage: 0,
    listable: 0,
    callFlag: 0,
    messageExpiration: 0,
    avatarVersion: avatarVersion(room),
    isCustomAvatar: room.avatar !== '',
    breakoutRoomMode: 0,
    breakoutRoomStatus: 0,
    recordingConsent: recordingConsent(room, env),
    mentionPermissions: room.mention_permissions,
    isArchived: false,
    isImportant: false,
    isSensitive: false,
    liveTranscriptionLanguageId: '',
    lastPinnedId: 0,
    hiddenPinnedId: 0,
    hasScheduledMessages: 0,
    tagIds: [],
    attributes: 0,
  };
}

/** Room columns shown to participants and, for listable rooms, to non-participants. */
function roomFields(r: ConversationRecord, room: RoomRow): void {
  r.objectType = room.object_type;
  r.objectId = room.object_id;
  r.readOnly = room.read_only;
  r.hasCall = room.active_since !== null;
  r.callStartTime = room.active_since ?? 0;
  r.callRecording = room.call_recording;
  r.lastActivity = room.last_activity;
  r.lobbyState = room.lobby_state;
  r.lobbyTimer = room.lobby_timer;
  r.listable = room.listable;
  r.callFlag = room.call_flag;
  r.breakoutRoomMode = room.breakout_room_mode;
  r.breakoutRoomStatus = room.breakout_room_status;
}

/**
 * Formats one conversation for the caller (pure). `listableForCaller`: the room is listed for
 * this caller (scope 2, or scope 1 for a non-guest-app user).
 */
export function formatConversation(view: ConversationView, env: FormatEnv, listableForCaller: boolean): ConversationRecord {
  const { room, attendee, session } = view;
  const r = defaults(room, env);
  // Added after the literal, not spread into it: a spread copies every property per record.
  if (env.includeLastMessage) r.lastMessage = [];
  const { cfg } = env;

  if (!attendee) {
    // Non-participant views: listable (or forced name) shows room fields; anything else only defaults.
    if (view.forceName || room.listable !== 0) {
      r.name = room.name;
      r.displayName = resolveDisplayName(view, env, listableForCaller);
      if (room.listable !== 0) r.description = room.description;
      roomFields(r, room);
      r.sipEnabled = room.sip_enabled;
      r.messageExpiration = 0;
    }
    return r;
  }

  const other = otherUserId(room, env.userId);
  r.name = isOneToOneKind(room.type) && other !== undefined ? other : room.name;
  r.displayName = resolveDisplayName(view, env, listableForCaller);
  r.description = room.description;
  roomFields(r, room);
  r.messageExpiration = room.message_expiration;
  r.participantType = attendee.participant_type;
  r.actorType = attendee.actor_type;
  r.actorId = attendee.actor_id;
  r.attendeeId = attendee.id;
  r.isFavorite = attendee.favorite !== 0;
  r.isArchived = attendee.archived !== 0;
  r.isImportant = attendee.important !== 0;
  r.isSensitive = attendee.sensitive !== 0;
  // The user's own scheduled messages here (-1: one failed); Talk fills it for users only.
  if (attendee.actor_type === ActorType.USERS) r.hasScheduledMessages = attendee.has_scheduled_messages;
  r.notificationLevel = resolveNotificationLevel(attendee.notification_level, room, attendee, cfg);
  r.notificationCalls = attendee.notification_calls;
  r.lastReadMessage = attendee.last_read_message;
  if (session) {
    r.participantFlags = session.in_call;
    r.lastPing = session.last_ping;
    r.sessionId = session.session_id;
  }

  // A proxied conversation names its host (docs/reference/federation.md#proxied-requests).
  if (room.remote_token !== '') {
    r.remoteServer = room.remote_server;
    r.remoteToken = room.remote_token;
  }

  const effective = permissionsIn(room, attendee, env.serverDefault);
  r.permissions = effective;
  r.attendeePermissions = attendee.permissions;
  r.callPermissions = room.call_permissions;
  r.defaultPermissions = room.default_permissions;

  r.sipEnabled = env.sipConfigured ? room.sip_enabled : 0;
  if (roomUsesPins(env.sipConfigured, room)) {
    // Contract type column: a string, never null (Talk sends null to actors without a PIN).
    r.attendeePin = actorGetsPin(attendee.actor_type) ? (attendee.pin ?? env.newPins.get(attendee.id) ?? '') : '';
  }

  const isUser = attendee.actor_type === ActorType.USERS;
  const leaveDelete = {
    roomType: room.type,
    participantType: attendee.participant_type,
    actorType: attendee.actor_type,
    deleteOneToOne: env.deleteOneToOne,
  };
  r.canDeleteConversation = canDeleteConversation(leaveDelete);
  r.canLeaveConversation = canLeaveConversation(leaveDelete);
  r.canEnableSIP =
    isUser &&
    env.sipConfigured &&
    isSipCompatibleToken(room.token) &&
    isGroupOrPublic(room.type) &&
    isLoggedInModeratorType(attendee.participant_type) &&
    env.inSipBridgeGroups;

  if (heldInLobby(room.lobby_state, attendee.participant_type, effective)) {
    // Lobby effect: nothing about the call or the chat leaks to someone waiting in the lobby.
    r.hasCall = false;
    r.canLeaveConversation = true;
    if (env.includeLastMessage) r.lastMessage = [];
    return r;
  }

  r.canStartCall = canStartCall({
    roomType: room.type,
    participantType: attendee.participant_type,
    actorType: attendee.actor_type,
    effectivePermissions: effective,
    startCalls: env.startCalls,
    startCallsGroups: env.startCallsGroups,
    inStartCallsGroups: env.inStartCallsGroups,
  });
  // Pins are chat content: not shown to someone waiting in the lobby (docs/reference/conversations.md#the-conversation-record).
  r.lastPinnedId = room.last_pinned_id;
  r.hiddenPinnedId = attendee.hidden_pinned_id;
  // Read status follows the caller's read_status_privacy: private readers see 0 (docs/reference/conversations.md#the-conversation-record).
  if (attendee.read_privacy === 0) r.lastCommonReadMessage = env.commonRead.get(room.id) ?? 0;
  // Mention flags follow the attendee's markers (docs/reference/chat.md#sending); direct ignores @all.
  r.unreadMention = attendee.last_mention_message > 0 && attendee.last_mention_message > attendee.last_read_message;
  r.unreadMentionDirect = attendee.last_mention_direct > 0 && attendee.last_mention_direct > attendee.last_read_message;
  const chat = env.chat?.get(room.id);
  if (chat?.proxied) {
    // The host's counters and last message, as its MESSAGE_POSTED told them (Talk's RoomFormatter
    // for federated conversations); the marker rule below is the host's, not applied here.
    r.unreadMessages = chat.unread;
    r.unreadMention = chat.proxied.unreadMention;
    r.unreadMentionDirect = chat.proxied.unreadMentionDirect;
    r.lastReadMessage = chat.proxied.lastReadMessage;
    if (env.includeLastMessage && chat.proxied.lastMessage) r.lastMessage = formatProxiedMessage(chat.proxied.lastMessage, room.token);
    return withStatus(r, env, room, other);
  }
  if (chat) {
    r.unreadMessages = chat.unread;
    if (env.includeLastMessage && chat.lastMessage) {
      r.lastMessage = formatChatMessage(
        chat.lastMessage,
        { token: room.token, roomType: room.type, viewer: { type: attendee.actor_type, id: attendee.actor_id } },
        false,
      );
    }
  }

  // Talk's formatRoom: a marker of 0 reads as -2 ("the first message is unread"), and a user
  // whose marker is -2 has at least that first message unread.
  if (r.lastReadMessage === 0) r.lastReadMessage = UNREAD_FIRST_MESSAGE;
  if (isUser && r.lastReadMessage === UNREAD_FIRST_MESSAGE && r.unreadMessages === 0) r.unreadMessages = 1;
  return withStatus(r, env, room, other);
}

/** The other user's status on a one-to-one record (GET /room includeStatus). */
function withStatus(r: ConversationRecord, env: FormatEnv, room: RoomRow, other: string | undefined): ConversationRecord {
  if (env.includeStatus && room.type === RoomType.ONE_TO_ONE && other !== undefined) {
    const st = env.statuses.get(other);
    if (st) {
      r.status = st.status;
      r.statusIcon = st.icon;
      r.statusMessage = st.message;
      r.statusClearAt = st.clearAt;
    }
  }
  return r;
}

/** See PresentOptions.validity: the earliest moment one of these records changes by itself. */
export function stableUntil(views: ConversationView[], statuses: ReadonlyMap<string, UserStatus>, now: number): number {
  let until = Infinity;
  for (const v of views) {
    // A timer expires once `lobby_timer < now`; a session is pinged or dies after a timeout.
    if (v.room.lobby_timer > 0) until = Math.min(until, v.room.lobby_timer);
    // Expiring messages leave lastMessage and the unread count without a write (docs/reference/chat.md#expiration).
    if (v.room.message_expiration > 0) until = Math.min(until, now + 1);
    // Messages stamped before the expiration was turned off still expire (rooms.next_expiry).
    if (v.room.next_expiry > 0) until = Math.min(until, Math.max(v.room.next_expiry, now + 1));
    if (v.session) until = Math.min(until, v.session.last_ping + SESSION_TIMEOUT, v.session.last_ping + SESSION_TIMEOUT_KILL - 1);
  }
  for (const st of statuses.values()) until = Math.min(until, st.stableUntil ?? now);
  return until;
}
