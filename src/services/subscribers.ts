/**
 * Who follows what: every subscription to the event bus, in one place. Reading this file tells
 * what else happens when a user, group, team or conversation changes. Handlers of one event run
 * in the order listed here.
 */
import { ActorType } from '../domain/constants.js';
import type { EventBus } from '../events/bus.js';
import type { CallActor } from '../events/event-map.js';
import type { AuthService } from './accounts/auth.js';
import type { AvatarService } from './conversations/avatars.js';
import type { LoginSessionService } from './accounts/login-sessions.js';
import type { MembershipSync } from './participants/membership-sync.js';
import type { NotificationActor, NotificationService } from './notifications/notifications.js';
import type { PhoneNumbersService } from './sip/phone-numbers.js';
import type { TeamsService } from './accounts/teams.js';
import type { UserAvatarService } from './accounts/user-avatars.js';
import type { UserStatusService } from './accounts/user-status.js';
import type { ChatSystemMessages } from './chat/chat-system-messages.js';
import type { ChatService } from './chat/chat.js';
import type { PollsService } from './chat/polls.js';
import type { SignalingNotifier } from './signaling/signaling-notifier.js';
import type { CallService } from './calls/calls.js';
import type { ChatRemindersService } from './chat/chat-reminders.js';
import type { ChatScheduleService } from './chat/chat-schedule.js';
import type { SessionService } from './participants/sessions.js';
import type { PushKeys } from './push/keys.js';
import type { FileFavoritesService } from './files/favorites.js';
import type { FilesService } from './files/files.js';
import type { FileSharesService } from './files/file-shares.js';
import type { ChunkedUploadsService } from './files/chunked-uploads.js';
import type { FederationServices } from './federation/index.js';

export interface Subscribers {
  auth: AuthService;
  loginSessions: LoginSessionService;
  sessions: SessionService;
  userStatus: UserStatusService;
  teams: TeamsService;
  phoneNumbers: PhoneNumbersService;
  membershipSync: MembershipSync;
  avatars: AvatarService;
  chatSystemMessages: ChatSystemMessages;
  chat: ChatService;
  signalingNotifier: SignalingNotifier;
  userAvatars: UserAvatarService;
  files: FilesService;
  fileFavorites: FileFavoritesService;
  fileShares: FileSharesService;
  chunkedUploads: ChunkedUploadsService;
  notifications: NotificationService;
  polls: PollsService;
  calls: CallService;
  chatReminders: ChatRemindersService;
  chatSchedule: ChatScheduleService;
  pushKeys: PushKeys;
  federation: FederationServices;
}

export function subscribeAll(bus: EventBus, s: Subscribers): void {
  // Messages notify the people they mention or reply to, and those notified of every message;
  // reading the chat past them reads the notifications.
  bus.on('chat.message-posted', ({ room, messageId, actor, mentioned, silent, config }) =>
    silent ? undefined : s.notifications.messagePosted(room, messageId, actor, mentioned, config),
  );
  // A shared file's caption notifies those it mentions or replies to (mentioned), as a message does.
  bus.on('chat.object-shared', ({ room, messageId, actor, mentioned }) => s.notifications.messagePosted(room, messageId, actor, mentioned ?? []));
  bus.on('chat.message-edited', ({ room, messageId, author, added, removedUserIds, silent }) =>
    s.notifications.messageEdited(room, messageId, author, added, removedUserIds, silent),
  );
  bus.on('chat.read', ({ room, userIds, messageId }) => s.notifications.chatReadUpTo(room.id, userIds, messageId));
  bus.on('chat.message-deleted', ({ room, messageId }) => s.notifications.messageDeleted(room.id, messageId));
  // People added by somebody are invited (Talk's notifier: group members too, at creation as later).
  bus.on('room.attendees-added', ({ room, userIds, invitedBy }) => s.notifications.invited(room, invitedBy, userIds));
  bus.on('room.joined', ({ room, actorType, actorId }) => (actorType === ActorType.USERS ? s.notifications.joinedRoom(room.id, actorId) : undefined));

  // Calls ring the conversation's users (notifications app), as Talk's notifier does.
  bus.on('call.started', ({ room, actor, silent, silentFor }) =>
    silent ? undefined : s.notifications.callStartedInRoom(room, { type: actor.actorType, id: actor.actorId, displayName: actor.displayName }, silentFor),
  );
  bus.on('call.joined', ({ room, actor }) => (actor.actorType === ActorType.USERS ? s.notifications.joinedCall(room.id, actor.actorId) : undefined));
  bus.on('call.ended', ({ room }) => s.notifications.missedCall(room.id));
  bus.on('call.ring', ({ room, actor, target }) =>
    target.actorType === ActorType.USERS ? s.notifications.rang(room, notificationActor(actor), target.actorId) : undefined,
  );

  // Credentials: cached verifications and login cookies stop working at once.
  bus.on('user.credentials-changed', ({ userId }) => s.auth.forget(userId));
  bus.on('user.credentials-changed', ({ userId }) => s.loginSessions.endAllFor(userId));
  // After the login sessions: Talk sessions opened with a login that no longer holds end too.
  bus.on('user.credentials-changed', ({ userId }) => s.sessions.endRevoked(userId));
  bus.on('user.credential-revoked', ({ userId }) => s.sessions.endRevoked(userId));

  // A deleted user: what belongs to them goes, then they leave their conversations
  // (one-to-ones become former one-to-ones; conversations left without users are deleted).
  bus.on('user.deleting', ({ userId }) => s.userStatus.forget(userId));
  bus.on('user.deleting', ({ userId }) => s.teams.removeUserEverywhere(userId));
  bus.on('user.deleting', ({ userId }) => s.loginSessions.endAllFor(userId));
  bus.on('user.deleting', ({ userId }) => s.phoneNumbers.removeAllOf(userId));
  bus.on('user.deleting', ({ userId }) => s.userAvatars.forget(userId));
  // Their shares go first (the files they point at go next); what they received leaves their tree.
  bus.on('user.deleting', ({ userId }) => s.fileShares.forgetUser(userId));
  bus.on('user.deleting', ({ userId }) => s.files.forget(userId));
  bus.on('user.deleting', ({ userId }) => s.fileFavorites.forget(userId));
  bus.on('user.deleting', ({ userId }) => s.chunkedUploads.forget(userId));
  bus.on('user.deleting', ({ userId }) => s.notifications.forgetUser(userId));
  bus.on('user.deleting', ({ userId }) => s.pushKeys.forget(userId));
  bus.on('user.deleting', ({ userId }) => s.federation.invitations.forgetUser(userId));
  bus.on('user.deleting', ({ userId }) => s.chatReminders.forgetUser(userId));
  bus.on('user.deleting', ({ userId }) => s.chatSchedule.forgetUser(userId));
  bus.on('user.deleting', ({ userId }) => s.chat.authorDeleted(userId));
  bus.on('user.deleting', ({ userId, by }) => s.membershipSync.userDeleted(userId, by));

  // Conversations follow the groups and teams that were added to them (contract "Add participant").
  bus.on('group.member-added', ({ groupId, userId, by }) => s.membershipSync.memberAdded(ActorType.GROUPS, groupId, userId, by));
  bus.on('group.member-removed', ({ groupId, userId, by }) => s.membershipSync.memberRemoved(ActorType.GROUPS, groupId, userId, by));
  bus.on('group.deleted', ({ groupId, members, by }) => s.membershipSync.sourceDeleted(ActorType.GROUPS, groupId, members, by));
  bus.on('team.member-added', ({ teamId, userId }) => s.membershipSync.memberAdded(ActorType.CIRCLES, teamId, userId));
  bus.on('team.member-removed', ({ teamId, userId }) => s.membershipSync.memberRemoved(ActorType.CIRCLES, teamId, userId));
  bus.on('team.deleted', ({ teamId, members }) => s.membershipSync.sourceDeleted(ActorType.CIRCLES, teamId, members));

  // Per-room data kept outside the room tables.
  bus.on('rooms.deleted', ({ rooms }) => s.avatars.forgetRooms(rooms));
  bus.on('rooms.deleted', ({ rooms }) => s.chat.forgetRooms(rooms));
  bus.on('rooms.deleted', ({ rooms }) => s.fileShares.forgetRooms(rooms.map((r) => r.id)));
  bus.on('rooms.deleted', ({ rooms }) => s.polls.forgetRooms(rooms.map((r) => r.id)));
  bus.on('rooms.deleted', ({ rooms }) => s.calls.forgetRooms(rooms));
  bus.on('rooms.deleted', ({ rooms }) => s.chatReminders.forgetRooms(rooms));
  bus.on('rooms.deleted', ({ rooms }) => s.chatSchedule.forgetRooms(rooms));
  // Their federated attendees' servers were owed SHARE_UNSHARED in the deleting transaction.
  bus.on('rooms.deleted', () => s.federation.host.deliverOwed());

  // The chat is the conversation's history: changes become system messages in their transaction.
  bus.on('room.changed', (e) => s.chatSystemMessages.roomChanged(e));
  bus.on('room.changed', (e) => s.federation.host.roomChanged(e));
  bus.on('chat.federated-post.trx', (e) => s.federation.host.messagePosted(e));
  bus.on('attendee.permissions-changed', (e) => s.federation.host.permissionsChanged(e));
  bus.on('rooms.deleted', ({ rooms }) => s.federation.sync.forgetRooms(rooms));
  bus.on('attendee.type-changed', (e) => s.chatSystemMessages.typeChanged(e));
  bus.on('room.attendees-added.trx', (e) => s.chatSystemMessages.membershipChanged(e, true));
  bus.on('rooms.lobby-timer-reached.trx', (e) => s.chatSystemMessages.lobbyTimerReached(e));
  bus.on('room.attendees-removed.trx', (e) => s.chatSystemMessages.membershipChanged(e, false, e.userDeleted === true));
  // Federated attendees removed here: their servers are owed SHARE_UNSHARED, in the same transaction.
  bus.on('room.attendees-removed.trx', (e) => s.federation.host.attendeesRemoved(e));
  // Calls leave their trace in the chat, in the transaction that changed the call (docs/reference/chat.md#system-messages call_*).
  bus.on('call.started.trx', (e) => s.chatSystemMessages.callStarted(e));
  bus.on('call.joined.trx', (e) => s.chatSystemMessages.callJoined(e));
  bus.on('call.left.trx', (e) => s.chatSystemMessages.callLeft(e));
  bus.on('call.ended.trx', (e) => s.chatSystemMessages.callEnded(e));

  // The external signaling server (docs/reference/signaling.md#notifications-to-the-signaling-server): queued, sent in the background.
  bus.on('rooms.deleted', ({ rooms }) => s.signalingNotifier.roomsDeleted(rooms));
  bus.on('room.updated', ({ room }) => s.signalingNotifier.roomUpdated(room));
  bus.on('room.attendees-added', ({ room, userIds }) => s.signalingNotifier.attendeesAdded(room, userIds));
  bus.on('room.attendees-removed', ({ room, userIds, sessionIds }) => s.signalingNotifier.attendeesRemoved(room, userIds, sessionIds));
  bus.on('room.participants-changed', ({ room, attendeeIds, reason }) => s.signalingNotifier.participantsChanged(room, attendeeIds, reason === 'guest-name'));
  bus.on('breakout.switched', ({ parent, children, started }) => s.signalingNotifier.breakoutSwitched(parent, children, started));
  bus.on('chat.message-posted', ({ room, messageId, config }) => s.signalingNotifier.chatMessage(room, messageId, config));
  bus.on('chat.reaction-added', ({ room, reactionId }) => s.signalingNotifier.chatMessage(room, reactionId));
  bus.on('chat.posted-in-transaction', ({ trx, room, messageId }) => s.signalingNotifier.chatMessageInTransaction(trx, room, messageId));
  bus.on('call.joined', ({ room, sessionId, flags }) => s.signalingNotifier.inCallChanged(room, sessionId, flags));
  bus.on('call.flags-updated', ({ room, sessionId, flags }) => s.signalingNotifier.inCallChanged(room, sessionId, flags));
  bus.on('call.left', ({ room, sessionId }) => s.signalingNotifier.inCallChanged(room, sessionId, 0));
  bus.on('call.ended', ({ room, everyone }) => (everyone ? s.signalingNotifier.callEndedForEveryone(room) : undefined));
  bus.on('rooms.deleted', ({ rooms }) => s.notifications.forgetRooms(rooms));
}

/** A call event's actor as the notifications name it. */
function notificationActor(actor: CallActor): NotificationActor {
  return { type: actor.actorType, id: actor.actorId, displayName: actor.displayName };
}
