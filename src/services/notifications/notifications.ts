/**
 * Notifications (Nextcloud's notifications app, fed as Talk's Notification\Listener and
 * Chat\Notifier feed it) and the API behind `/ocs/v2.php/apps/notifications/api/v2/notifications`.
 *
 * Talk events → rows (one statement per event, whatever the number of recipients):
 * - `invited`: people added to a group or public conversation by someone else (subject
 *   `invitation`, object `room`/token). Not for one-to-one conversations or breakout rooms.
 * - `messagePosted`: a chat message — replies, mentions (`reply`, `mention_direct`,
 *   `mention_group`, `mention_all`) and, for people notified of every message, `chat`; object
 *   `chat`/token, message id and message kept.
 * - `callStarted` / `missedCall` / `joinedCall`: call notifications (subject `call`, object
 *   `call`/token); a repeated start refreshes the row; `missedCall` switches the wording to
 *   "You missed …"; joining the call removes it. Only for participants with call notifications on.
 * - `chatReadUpTo`: reading the chat up to a message removes the mention notifications up to it.
 * - `leftRoom` / `removedFromRoom`: leaving or being removed removes the person's notifications
 *   of that conversation; a deleted conversation or account takes its notifications along.
 * Reading also drops (and deletes) notifications whose conversation is gone or that the user
 * no longer belongs to (Talk: AlreadyProcessedException), so no removal path can leave one behind.
 *
 * Every write of a notification owes pushes to its user's devices: the database writes them to
 * the outbox in the same statement (migration 0821's triggers), and `outboxWake` tells this
 * process's outbox worker to deliver them (services/push).
 */
import { createHash } from 'node:crypto';
import { chunks } from '../../db/chunks.js';
import type { NewNotification, NotificationRow, NotificationsRepository } from '../../db/repositories/notifications.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import { ActorType, NotificationLevel, RoomType, SESSION_TIMEOUT } from '../../domain/constants.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import type { MentionNotice } from '../chat/chat.js';
import { badRequest, notFound } from '../../domain/errors.js';
import { isOneToOneKind, permissionsIn, serverDefaultPermissions } from '../../domain/permissions.js';
import { may } from '../../domain/abilities.js';
import { nowSeconds } from '../../domain/time.js';
import { otherUserId } from '../../domain/one-to-one.js';
import { parseJson, presentNotification, type NotificationRecord, type RichParameters } from '../../presenters/notification.js';
import { formatChatMessage } from '../../presenters/chat-message.js';
import { readerEnv } from '../../presenters/chat-reminder.js';
import { MessageType } from '../../domain/chat.js';
import type { AppConfigService } from '../platform/app-config.js';
import type { DirectoryService } from '../accounts/directory.js';
import type { RequestContext } from '../platform/request-context.js';
import type { UserStatusService } from '../accounts/user-status.js';
import type { Repositories } from '../../db/repositories/index.js';
import { presentRemoteShareNotification, type RemoteShareParams } from '../../presenters/federation.js';

/** Who caused the event: a user, or a guest (`guests`/`emails`) with the name shown for them. */
export interface NotificationActor {
  type: string;
  id: string;
  displayName?: string;
}

/** Nextcloud refuses to confirm more ids at once (EndpointController::confirmIdsForUser). */
const MAX_EXISTS_IDS = 200;

export interface NotificationList {
  records: NotificationRecord[];
  etag: string;
}

export class NotificationService {
  constructor(
    private readonly repo: NotificationsRepository,
    private readonly repos: Pick<Repositories, 'attendees' | 'rooms' | 'chatMessages' | 'federationInvitations'>,
    private readonly directory: DirectoryService,
    private readonly userStatus: UserStatusService,
    private readonly appConfig: AppConfigService,
    /** Wakes the outbox worker after a write (the pushes it owes are in the outbox by then). */
    private readonly outboxWake: () => void = () => undefined,
  ) {}

  /** Deleted conversations take their notifications along (subscribed to `rooms.deleted`). */
  async forgetRooms(rooms: RoomRow[]): Promise<void> {
    if (await this.repo.deleteInRooms(rooms.map((r) => r.id))) this.outboxWake();
  }

  /** A deleted user's notifications go with them (subscribed to `user.deleting`). */
  async forgetUser(userId: string): Promise<void> {
    if (await this.repo.deleteForUser(userId)) this.outboxWake();
  }

  // ---- events ----

  /**
   * People were added to a conversation by `actorUserId` (Talk: AttendeesAddedEvent →
   * generateInvitation). Group and public conversations only; not breakout rooms; not the actor.
   */
  async invited(room: RoomRow, actorUserId: string | undefined, userIds: string[]): Promise<void> {
    if (!actorUserId || isOneToOneKind(room.type) || room.object_type === 'room') return;
    const targets = [...new Set(userIds)].filter((u) => u !== actorUserId);
    await this.insert(room, targets, { subject: 'invitation', object_type: 'room', subject_params: JSON.stringify({ actorId: actorUserId }) });
  }

  /**
   * A chat message was posted (Talk: Chat\Notifier, after commit, unless it was silent), in
   * Talk's order, each user once and never the author:
   * 1. the users it reaches by name (`notices`): the author of the message replied to (subject
   *    `reply`), direct mentions (`mention_direct`), members of a mentioned group
   *    (`mention_group`), everybody through @all (`mention_all`) — users of the conversation
   *    whose notification level is not "never" and who are not held in the lobby;
   * 2. then everybody else notified of every message (subject `chat`): notification level
   *    "always", and "default" in one-to-one conversations or where `default_group_notification`
   *    is "always", who are not reading the conversation right now (no session pinged in the
   *    last 30 seconds).
   * Two statements at most: the named users' attendee rows (only when there are any), and the
   * users notified of every message (by index, however large the conversation).
   */
  async messagePosted(
    room: RoomRow,
    messageId: number,
    actor: NotificationActor,
    notices: MentionNotice[],
    cfg?: AppConfigSnapshot,
    opts: { mentionsOnly?: boolean } = {},
  ): Promise<void> {
    const config = cfg ?? (await this.appConfig.snapshot());
    const defaultGroup = config.int('default_group_notification') || NotificationLevel.MENTION;
    // A user held in the lobby is not told of mentions (Talk's shouldMentionedUserBeNotified).
    const inLobby = (a: AttendeeRow) =>
      !may.passLobby(room.lobby_state, a, permissionsIn(room, a, serverDefaultPermissions(config.raw('default_permissions'))));
    // Level 0 is the conversation's default (docs/reference/constants.md#notification-levels).
    const levelOf = (a: AttendeeRow) =>
      a.notification_level !== NotificationLevel.DEFAULT ? a.notification_level : room.type === RoomType.ONE_TO_ONE ? NotificationLevel.ALWAYS : defaultGroup;
    const params = authorParams(actor);
    const rows: Array<{ userId: string; subject: string; params: Record<string, unknown> }> = [];
    const reached = new Set<string>();
    const named = notices.filter((n) => !isActor(actor, n.userId));
    if (named.length) {
      const members = new Map(
        (
          await this.members(
            room,
            named.map((n) => n.userId),
          )
        ).map((a) => [a.actor_id, a]),
      );
      for (const n of named) {
        const a = members.get(n.userId);
        if (!a || levelOf(a) === NotificationLevel.NEVER || inLobby(a)) continue;
        reached.add(n.userId);
        const group = n.reason === 'group' ? { sourceId: n.sourceId, sourceName: n.sourceName } : {};
        rows.push({ userId: n.userId, subject: n.reason === 'reply' ? 'reply' : `mention_${n.reason}`, params: { ...params, ...group } });
      }
    }
    const now = nowSeconds();
    if (!opts.mentionsOnly) {
      const everyMessage: [number] | [number, number] =
        room.type === RoomType.ONE_TO_ONE || defaultGroup === NotificationLevel.ALWAYS
          ? [NotificationLevel.ALWAYS, NotificationLevel.DEFAULT]
          : [NotificationLevel.ALWAYS];
      for (const userId of await this.repos.attendees.usersToNotifyOfMessages(room.id, everyMessage, now - SESSION_TIMEOUT)) {
        if (!reached.has(userId) && !isActor(actor, userId)) rows.push({ userId, subject: 'chat', params });
      }
    }
    if (rows.length === 0) return;
    const owes = await this.repo.upsert(
      rows.map((r) =>
        notificationRow(room, r.userId, {
          subject: r.subject,
          object_type: 'chat',
          message_id: messageId,
          subject_params: JSON.stringify(r.params),
          created_at: now,
        }),
      ),
    );
    if (owes) this.outboxWake();
  }

  /**
   * A message was edited (Talk's ChatManager::editMessage): users it no longer mentions lose
   * their mention notification of it; users it now mentions are notified (unless it was sent
   * silently) as its author's mention; nobody is told of the edit otherwise.
   */
  async messageEdited(
    room: RoomRow,
    messageId: number,
    author: NotificationActor,
    added: MentionNotice[],
    removedUserIds: string[],
    silent: boolean,
  ): Promise<void> {
    let owes = false;
    for (const part of chunks(removedUserIds))
      if (await this.repo.deleteInRooms([room.id], { userIds: part, objectType: 'chat', subjects: MENTION_SUBJECTS, messageId })) owes = true;
    if (owes) this.outboxWake();
    if (!silent && added.length) await this.messagePosted(room, messageId, author, added, undefined, { mentionsOnly: true });
  }

  /**
   * A call started (Talk: call notifications unless silent). Recipients: `userIds` that are in
   * the conversation with call notifications on, minus the actor. A second start refreshes it.
   */
  async callStarted(room: RoomRow, actor: NotificationActor, userIds: string[]): Promise<void> {
    await this.notifyCall(room, actor, await this.members(room, userIds));
  }

  /**
   * `call.started` (Talk: unless the call started silently): every user of the conversation
   * except those in `silentFor`, the actor and those with call notifications turned off. The
   * conversation's attendee rows already carry the setting, so no second look-up.
   */
  async callStartedInRoom(room: RoomRow, actor: NotificationActor, silentFor: string[]): Promise<void> {
    const users = (await this.repos.attendees.forRoom(room.id)).filter((a) => a.actor_type === ActorType.USERS && !silentFor.includes(a.actor_id));
    await this.notifyCall(room, actor, users);
  }

  /**
   * A participant rang `target` (Talk: Notifier::sendCallNotification from the ring endpoint):
   * a call notification for that user alone, even with call notifications turned off, since
   * somebody asked for them by name; a notification already there is refreshed.
   */
  async rang(room: RoomRow, actor: NotificationActor, targetUserId: string): Promise<void> {
    if (isActor(actor, targetUserId)) return;
    const member = await this.members(room, [targetUserId]);
    await this.insert(
      room,
      member.map((a) => a.actor_id),
      callFields(actor),
    );
  }

  /** Call notifications for the user attendees `members`, minus the actor and call notifications off. */
  private async notifyCall(room: RoomRow, actor: NotificationActor, members: AttendeeRow[]): Promise<void> {
    const targets = members.filter((a) => a.notification_calls !== 0 && !isActor(actor, a.actor_id)).map((a) => a.actor_id);
    await this.insert(room, targets, callFields(actor));
  }

  /** The call ended without these users (all when omitted): their call notifications read "You missed …". */
  async missedCall(roomId: number, userIds?: string[]): Promise<void> {
    if (await this.repo.markCallMissed(roomId, userIds)) this.outboxWake();
  }

  /** The user joined the call: their call notification goes (Talk: markCallNotificationsRead). */
  async joinedCall(roomId: number, userId: string): Promise<void> {
    if (await this.repo.deleteInRooms([roomId], { userIds: [userId], objectType: 'call' })) this.outboxWake();
  }

  /** The user opened the conversation: its invitation is processed (Talk: markInvitationRead on join). */
  async joinedRoom(roomId: number, userId: string): Promise<void> {
    if (await this.repo.deleteInRooms([roomId], { userIds: [userId], objectType: 'room' })) this.outboxWake();
  }

  /** The user read the chat up to `messageId`: their mention notifications up to it go. */
  async chatReadUpTo(roomId: number, userIds: string[], messageId: number): Promise<void> {
    let owes = false;
    for (const part of chunks(userIds))
      if (await this.repo.deleteInRooms([roomId], { userIds: part, objectType: 'chat', upToMessageId: messageId })) owes = true;
    if (owes) this.outboxWake();
  }

  /**
   * A message was deleted: every notification about it goes (Talk's
   * removePendingNotificationsForMessage), so phones get their silent deletes now rather than
   * when the notifications are next listed.
   */
  async messageDeleted(roomId: number, messageId: number): Promise<void> {
    let owes = false;
    for (const objectType of ['chat', 'reminder']) if (await this.repo.deleteInRooms([roomId], { objectType, messageId })) owes = true;
    if (owes) this.outboxWake();
  }

  /** Expired messages were deleted: notifications about them go too (their silent deletes follow). */
  async forgetGoneMessages(): Promise<void> {
    if (await this.repo.deleteAboutGoneMessages()) this.outboxWake();
  }

  /** The user left the conversation: all their notifications of it go. */
  async leftRoom(roomId: number, userId: string): Promise<void> {
    await this.removedFromRoom([roomId], [userId]);
  }

  /** Users were removed from conversations (and their breakout rooms): their notifications there go. */
  async removedFromRoom(roomIds: number[], userIds: string[]): Promise<void> {
    if (await this.repo.deleteInRooms(roomIds, { userIds })) this.outboxWake();
  }

  private members(room: RoomRow, userIds: string[]) {
    return userIds.length ? this.repos.attendees.actorsInRooms([room.id], ActorType.USERS, [...new Set(userIds)]) : Promise.resolve([]);
  }

  private async insert(
    room: RoomRow,
    userIds: string[],
    fields: Pick<NewNotification, 'subject' | 'object_type' | 'subject_params'> & Partial<NewNotification>,
  ): Promise<void> {
    if (userIds.length === 0) return;
    const now = nowSeconds();
    if (await this.repo.upsert([...new Set(userIds)].map((userId) => notificationRow(room, userId, { created_at: now, ...fields })))) this.outboxWake();
  }

  /**
   * A message of a conversation kept here for another server's (Talk's FederationChatNotifier,
   * docs/federation.md "Keeping the conversation current"): the message is not in this server's
   * chat, so the row keeps its text, rich parameters and author (`actorDisplayName`) as the host
   * sent them, mapped for this server; `message_id` is the host's.
   */
  async proxiedMessage(
    room: RoomRow,
    userId: string,
    subject: string,
    m: { remoteMessageId: number; actorType: string; actorId: string; actorDisplayName: string; message: string; parameters: object; createdAt: number },
  ): Promise<void> {
    const row = notificationRow(room, userId, {
      subject,
      object_type: 'chat',
      message_id: m.remoteMessageId,
      subject_params: JSON.stringify({ userType: m.actorType, userId: m.actorId, actorDisplayName: m.actorDisplayName }),
      message: m.message,
      message_params: JSON.stringify(m.parameters),
      created_at: nowSeconds(),
    });
    if (await this.repo.upsert([row])) this.outboxWake();
  }

  /** A user here was invited to a conversation on another server (Talk: `remote_talk_share`). */
  async remoteInvitation(userId: string, invitationId: number, params: RemoteShareParams): Promise<void> {
    const row = notificationRow({ id: 0, token: String(invitationId) }, userId, {
      subject: REMOTE_SHARE,
      object_type: REMOTE_SHARE,
      subject_params: JSON.stringify(params),
      created_at: nowSeconds(),
    });
    if (await this.repo.upsert([row])) this.outboxWake();
  }

  /** The invitation was accepted, declined or withdrawn: its notification goes. */
  async forgetRemoteInvitation(userId: string, invitationId: number): Promise<void> {
    if (await this.repo.deleteObject(userId, REMOTE_SHARE, String(invitationId))) this.outboxWake();
  }

  // ---- the notifications app API ----

  /** `GET …/notifications`: newest first (at most 25), with Nextcloud's ETag (md5 of the ids). */
  async list(ctx: RequestContext, base: string, apiVersion: 'v1' | 'v2'): Promise<NotificationList> {
    const userId = ctx.userId!;
    const records = await this.present(await this.repo.listForUser(userId), base, apiVersion);
    const ids = records.map((r) => r.notification_id);
    return { records, etag: createHash('md5').update(JSON.stringify(ids)).digest('hex') };
  }

  /** `GET …/notifications/{id}`: 404 for id 0, another user's, a missing or a stale notification. */
  async get(ctx: RequestContext, id: number, base: string, apiVersion: 'v1' | 'v2'): Promise<NotificationRecord> {
    const row = id > 0 ? await this.repo.findForUser(ctx.userId!, id) : undefined;
    const [record] = row ? await this.present([row], base, apiVersion) : [];
    if (!record) throw notFound('notification', 'Notification not found');
    return record;
  }

  /** `DELETE …/notifications/{id}`: 200 whether or not it existed (Nextcloud); 404 for id 0. */
  async deleteOne(ctx: RequestContext, id: number): Promise<void> {
    if (id <= 0) throw notFound('notification', 'Notification not found');
    if (await this.repo.deleteIds(ctx.userId!, [id])) this.outboxWake();
  }

  /** `DELETE …/notifications`: all of the caller's; their devices get one silent `delete-all`. */
  async deleteAll(ctx: RequestContext): Promise<void> {
    await this.repo.deleteAllForUser(ctx.userId!);
    this.outboxWake();
  }

  /**
   * The notifications of many users as pushes show them (v2 records, the subject in plain text),
   * by id: for each user, those of their `ids` that still exist; read, removed or stale ones are
   * missing (stale ones are deleted, as on a read). With `importantOnly` (the user is on "do not
   * disturb"), only those of conversations the user marked important: Talk makes them priority
   * notifications, which the notifications app pushes through "do not disturb". A fixed number of
   * statements whatever the number of users (a message to a large conversation owes a push to
   * each member: docs/benchmarks.md "Push to a large conversation").
   */
  async recordsForPush(
    wants: ReadonlyArray<{ userId: string; ids: number[]; importantOnly?: boolean }>,
    base: string,
  ): Promise<Map<number, NotificationRecord>> {
    const rows = await this.repo.findIdsOfUsers(wants);
    const importantOnly = new Set(wants.filter((w) => w.importantOnly).map((w) => w.userId));
    const records = await this.present(rows, base, 'v2', importantOnly);
    return new Map(records.map((r) => [r.notification_id, r]));
  }

  /** `POST …/notifications/exists`: which of the ids still exist for the caller (400 past 200 ids). */
  async exists(ctx: RequestContext, ids: number[]): Promise<number[]> {
    if (ids.length > MAX_EXISTS_IDS) throw badRequest('ids', `At most ${MAX_EXISTS_IDS} ids`);
    return this.repo.existingIds(ctx.userId!, [...new Set(ids.filter((i) => i > 0))]);
  }

  /** X-Nextcloud-User-Status: the caller's own status, 'online' without one (EndpointController). */
  async userStatusOf(userId: string): Promise<string> {
    try {
      return (await this.userStatus.own(userId)).status;
    } catch {
      return 'online';
    }
  }

  /**
   * Rows (of one user or of many) → records with a fixed number of queries (rooms, memberships,
   * names, messages). Rows whose conversation is gone or whose user left it are deleted, as
   * Talk's notifier does. Users in `importantOnly` get only those of conversations they marked
   * important.
   */
  private async present(
    rows: NotificationRow[],
    base: string,
    apiVersion: 'v1' | 'v2',
    importantOnly: ReadonlySet<string> = new Set(),
  ): Promise<NotificationRecord[]> {
    if (rows.length === 0) return [];
    const userIds = [...new Set(rows.map((r) => r.user_id))];
    // Invitations to other servers' conversations have no conversation here: shown while pending.
    const remoteShares = rows.filter((r) => r.object_type === REMOTE_SHARE);
    const pending = await this.repos.federationInvitations.pendingIds(remoteShares.map((r) => Number(r.object_id)).filter(Number.isSafeInteger));
    const roomIds = [...new Set(rows.filter((r) => r.object_type !== REMOTE_SHARE).map((r) => Number(r.room_id)))];
    const rooms = new Map((await this.repos.rooms.findByIds(roomIds)).map((r) => [Number(r.id), r]));
    const memberKey = (roomId: number, userId: string) => `${roomId} ${userId}`;
    const memberOf = new Map(
      (await this.repos.attendees.actorsInRooms([...rooms.keys()], ActorType.USERS, userIds)).map((a) => [memberKey(Number(a.room_id), a.actor_id), a]),
    );
    const otherOf = (room: RoomRow | undefined, userId: string) => (room && isOneToOneKind(room.type) ? otherUserId(room, userId) : undefined);
    const nameIds = new Set<string>();
    for (const r of rows) {
      const sp = parseJson(r.subject_params);
      for (const k of ['actorId', 'callee', 'userId']) if (typeof sp[k] === 'string') nameIds.add(sp[k]);
      const other = otherOf(rooms.get(Number(r.room_id)), r.user_id);
      if (other) nameIds.add(other);
    }
    const names = new Map((await this.directory.users.existing([...nameIds])).map((u) => [u.id, u.display_name || u.id]));
    // Notifications about a message show it as it is now, as Talk's notifier parses it when
    // read: edited, it reads edited; deleted or expired, the notification is gone.
    // A conversation kept here for another server's has no messages here: its rows keep theirs.
    const proxied = (row: NotificationRow) => rooms.get(Number(row.room_id))?.remote_token !== '' && rooms.has(Number(row.room_id));
    const messageIds = [...new Set(rows.filter((r) => isAboutMessage(r) && !proxied(r)).map((r) => Number(r.message_id)))];
    const messages = new Map((messageIds.length ? await this.repos.chatMessages.findByIds(messageIds, nowSeconds()) : []).map((m) => [m.id, m]));
    const out: NotificationRecord[] = [];
    const stale: number[] = [];
    for (const row of rows) {
      if (row.object_type === REMOTE_SHARE) {
        if (pending.has(Number(row.object_id))) out.push(presentRemoteShareNotification(row, base, apiVersion));
        else stale.push(Number(row.id));
        continue;
      }
      const userId = row.user_id;
      const room = rooms.get(Number(row.room_id));
      const member = room ? memberOf.get(memberKey(Number(room.id), userId)) : undefined;
      const message = isAboutMessage(row) ? messages.get(Number(row.message_id)) : undefined;
      const gone =
        isAboutMessage(row) && !proxied(row) && (!message || message.room_id !== Number(row.room_id) || message.message_type === MessageType.COMMENT_DELETED);
      if (!room || !member || gone) {
        stale.push(Number(row.id));
        continue;
      }
      const other = otherOf(room, userId);
      const roomName = other !== undefined ? (names.get(other) ?? other) : room.name;
      // A conversation its user marked sensitive shows no message: none is formatted.
      const sensitive = member.sensitive !== 0;
      const chatMessage = message && !sensitive ? asRichMessage(formatChatMessage(message, readerEnv(room, userId), false)) : undefined;
      const record = presentNotification(row, { base, apiVersion, room, roomName, names, chatMessage, sensitive });
      if (record && importantOnly.has(userId) && member.important === 0) continue;
      if (record) out.push(record);
      else stale.push(Number(row.id));
    }
    if (stale.length && (await this.repo.deleteIds(userIds, stale))) this.outboxWake();
    return out;
  }
}

/** The subject and object type of a federation invitation's notification. */
const REMOTE_SHARE = 'remote_talk_share';

/** Subjects of mention notifications (the older `mention` included). */
const MENTION_SUBJECTS = ['mention', 'mention_direct', 'mention_group', 'mention_all'];

/** Chat and reminder notifications show their message. */
function isAboutMessage(row: NotificationRow): boolean {
  return (row.object_type === 'chat' || row.object_type === 'reminder') && Number(row.message_id) > 0;
}

/** A formatted chat message as a notification's rich message (PHP's empty parameter list is `[]`). */
function asRichMessage(m: Record<string, unknown>): { text: string; parameters: RichParameters } {
  const p = m.messageParameters;
  return { text: String(m.message ?? ''), parameters: p && !Array.isArray(p) ? (p as RichParameters) : {} };
}

/** A chat notification's subject parameters: the author, and a guest's name as it was when they wrote. */
export function authorParams(actor: NotificationActor): Record<string, string> {
  const params: Record<string, string> = { userType: actor.type, userId: actor.id };
  if (actor.type !== ActorType.USERS && actor.displayName) params.guestName = actor.displayName;
  return params;
}

/**
 * A notification row of the spreed app about `room` for `userId`: object id the room's token,
 * no message id unless given. The message is never stored: it is read when the notification is.
 */
export function notificationRow(
  room: Pick<RoomRow, 'id' | 'token'>,
  userId: string,
  fields: Pick<NewNotification, 'subject' | 'object_type' | 'subject_params' | 'created_at'> & Partial<NewNotification>,
): NewNotification {
  return { app: 'spreed', object_id: room.token, room_id: room.id, message_id: 0, message: '', message_params: '{}', missed: 0, ...fields, user_id: userId };
}

/** Whether user `userId` is the actor (nobody is notified of their own doing). */
function isActor(actor: NotificationActor, userId: string): boolean {
  return actor.type === ActorType.USERS && actor.id === userId;
}

/** A call notification's fields: `callee` names the user who started or rang (null for guests). */
function callFields(actor: NotificationActor): Pick<NewNotification, 'subject' | 'object_type' | 'subject_params'> {
  return { subject: 'call', object_type: 'call', subject_params: JSON.stringify({ callee: actor.type === ActorType.USERS ? actor.id : null }) };
}
