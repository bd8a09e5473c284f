/**
 * The conversation record as a TypeBox schema (contract "Conversation" table plus the fields
 * docs/reference/conversations.md#the-conversation-record lists): THE one description of the record. The presenter's
 * `ConversationRecord` type is derived from it, and every route that answers with a record uses
 * it as its `response` schema (GET /openapi.json).
 *
 * Field order follows Talk's RoomFormatter (the presenter builds records in this order).
 */
import { Type, type Static } from '@sinclair/typebox';

const Int = (description?: string) => Type.Integer(description ? { description } : {});
const Bool = (description?: string) => Type.Boolean(description ? { description } : {});
const Str = (description?: string) => Type.String(description ? { description } : {});
const NullableStr = Type.Union([Type.String(), Type.Null()]);

export const ConversationSchema = Type.Object(
  {
    id: Int('numeric identifier'),
    token: Str('token identifier used for further interaction'),
    type: Int('1 one-to-one, 2 group, 3 public, 4 changelog, 5 former one-to-one, 6 note-to-self'),
    name: Str('name (one-to-one: the other user id)'),
    displayName: Str('name if non-empty, otherwise a list of participants'),
    objectType: Str(),
    objectId: Str(),
    participantType: Int('1 owner, 2 moderator, 3 user, 4 guest, 5 self-joined user, 6 guest moderator'),
    participantFlags: Int('in-call flags of the requesting session'),
    readOnly: Int('0 read-write, 1 read-only'),
    hasCall: Bool(),
    callStartTime: Int(),
    callRecording: Int(),
    canStartCall: Bool(),
    lastActivity: Int('unix seconds'),
    lastReadMessage: Int(),
    unreadMessages: Int(),
    unreadMention: Bool(),
    unreadMentionDirect: Bool(),
    isFavorite: Bool(),
    canLeaveConversation: Bool(),
    canDeleteConversation: Bool(),
    notificationLevel: Int('1 always, 2 mentions, 3 never'),
    notificationCalls: Int('0 off, 1 on'),
    lobbyState: Int('0 no lobby, 1 lobby for non-moderators'),
    lobbyTimer: Int('unix seconds when the lobby lifts, 0 = none'),
    lastPing: Int(),
    sessionId: Str("'0' when not connected"),
    hasPassword: Bool(),
    sipEnabled: Int('0 off, 1 with PIN, 2 without PIN'),
    actorType: Str(),
    actorId: Str(),
    attendeeId: Int(),
    permissions: Int('effective permissions (bit flags)'),
    attendeePermissions: Int(),
    callPermissions: Int(),
    defaultPermissions: Int(),
    canEnableSIP: Bool(),
    attendeePin: Str(),
    description: Str(),
    lastCommonReadMessage: Int(),
    listable: Int('0 participants only, 1 regular users, 2 everyone'),
    callFlag: Int(),
    messageExpiration: Int('seconds, 0 = disabled'),
    avatarVersion: Str(),
    isCustomAvatar: Bool(),
    breakoutRoomMode: Int(),
    breakoutRoomStatus: Int(),
    recordingConsent: Int(),
    mentionPermissions: Int(),
    isArchived: Bool('the caller archived the conversation (POST/DELETE …/archive)'),
    isImportant: Bool('the caller marked it important (POST/DELETE …/important)'),
    isSensitive: Bool('the caller marked it sensitive: notifications and reminders leave its messages out (POST/DELETE …/sensitive)'),
    liveTranscriptionLanguageId: Str(),
    // Pinned messages (pinned-messages) and scheduled messages (scheduled-messages).
    lastPinnedId: Int('id of the message pinned last that is still pinned, 0 = none (feature pinned-messages)'),
    hiddenPinnedId: Int('pinned message the caller hid for themselves, 0 = none (hidden when equal to lastPinnedId)'),
    hasScheduledMessages: Int("the caller's scheduled messages here, -1 after one failed (feature scheduled-messages, local)"),
    // Required by Talk's current OpenAPI (clients generated from it reject records without them).
    // Their features (tags, presets) are not advertised; the values are true for Parley: no
    // tags, no preset.
    tagIds: Type.Array(Type.String(), { description: "ids of the user's conversation tags" }),
    attributes: Int('conversation preset bits, 0 = none (feature conversation-presets, not advertised)'),
    lastMessage: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Record(Type.String(), Type.Unknown())])),
    status: Type.Optional(Str('one-to-one with includeStatus: the other user status')),
    statusIcon: Type.Optional(NullableStr),
    statusMessage: Type.Optional(NullableStr),
    statusClearAt: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    remoteServer: Type.Optional(Str("a proxied (federated) conversation: its host's base URL")),
    remoteToken: Type.Optional(Str("a proxied (federated) conversation: the host's token")),
  },
  { description: 'conversation record' },
);

export type ConversationRecordShape = Static<typeof ConversationSchema>;

/** A list of conversation records (GET /room, GET /listed-room). */
export const ConversationListSchema = Type.Array(ConversationSchema);
