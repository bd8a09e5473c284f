/**
 * Keeping the conversation kept here for a host's current (docs/federation.md "Keeping the
 * conversation current", docs/reference/federation.md#keeping-the-conversation-current): the
 * host's MESSAGE_POSTED, authenticated by the invitation's shared secret, leaves its message
 * (mapped for this server) as the conversation's last message, the user's unread counters as the
 * host counted them, moves lastActivity, and notifies the user as Talk's FederationChatNotifier
 * does; an edit or deletion of the kept message reads it again from the host;
 * PARTICIPANT_MODIFIED sets the user's permissions there. Messages themselves are still
 * read from the host (proxy.ts).
 */
import type { Repositories } from '../../db/repositories/index.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import { ActorType, NotificationLevel } from '../../domain/constants.js';
import { ocmRefused } from '../../domain/errors.js';
import { isValidPermissionValue } from '../../domain/permissions.js';
import { ownRemote, parseRemote } from '../../domain/federation/cloud-id.js';
import {
  convertPostedMessage,
  postedFromRecord,
  proxiedNotificationSubject,
  readMessagePosted,
  type ConversionContext,
  type PostedMessage,
} from '../../domain/federation/message-posted.js';
import type { FederationLastMessageRow } from '../../db/repositories/federation-sync.js';
import type { InvitationRow } from '../../db/repositories/federation-invitations.js';
import { RemoteUnreachable, type FederationClient } from './remote-client.js';
import { isRefusal, OCM_RESOURCE_NOT_FOUND, type ReceivedNotification } from '../../domain/federation/ocm.js';
import { nowSeconds } from '../../domain/time.js';
import type { RoomsService } from '../conversations/rooms.js';
import type { NotificationService } from '../notifications/notifications.js';
import type { AppConfigService } from '../platform/app-config.js';
import type { FederationProxy } from './proxy.js';
import { sameSecret } from './secrets.js';

const ACCEPTED = 1;

export class FederationSync {
  private readonly ownRemote: string;

  constructor(
    private readonly repos: Repositories,
    private readonly rooms: RoomsService,
    private readonly appConfig: AppConfigService,
    private readonly notifications: NotificationService,
    private readonly proxy: FederationProxy,
    private readonly client: FederationClient,
    baseUrl: string,
  ) {
    this.ownRemote = ownRemote(baseUrl).toLowerCase();
  }

  /**
   * MESSAGE_POSTED: a wrong secret (or an unknown share) is 400 RESOURCE_NOT_FOUND, a malformed
   * body 400 with `validationErrors`; both change nothing. An invitation not accepted yet keeps
   * nothing. Edits and deletions (`message_edited`, `message_deleted`) only move the counters and
   * lastActivity: the message they are about is read from the host.
   */
  async messagePosted(n: ReceivedNotification): Promise<void> {
    const inv = await this.repos.federationInvitations.findByShare(n.remoteServerUrl, n.providerId);
    if (!inv || !sameSecret(inv.access_token, n.secret)) throw ocmRefused(400, OCM_RESOURCE_NOT_FOUND);
    const posted = readMessagePosted(n.fields);
    if (isRefusal(posted)) throw ocmRefused(posted.status, posted.message, posted.validationErrors);
    if (posted.remoteToken !== inv.remote_token) throw ocmRefused(400, 'Invalid request', [{ name: 'remoteToken', message: 'invalid' }]);
    if (Number(inv.state) !== ACCEPTED || Number(inv.local_room_id) <= 0) return;
    const room = await this.repos.rooms.findById(Number(inv.local_room_id));
    if (!room || room.remote_token === '') throw ocmRefused(400, OCM_RESOURCE_NOT_FOUND);
    const m = convertPostedMessage(posted.message, this.conversion(room));
    const movesLast = m.systemMessage !== 'message_edited' && m.systemMessage !== 'message_deleted';
    const now = nowSeconds();
    const attendee = await this.rooms.lockedTransaction(room.id, async (repos) => {
      if (movesLast) {
        await repos.federationSync.keepLastMessage(keptRow(room.id, m));
      }
      // Also what makes the conversation's kept answers stale (the room's change-feed topic).
      await repos.rooms.update(room.id, { last_activity: Math.max(room.last_activity, now) });
      const mine = await repos.attendees.find(room.id, ActorType.USERS, inv.user_id);
      if (mine) {
        await repos.federationSync.setUnread({
          attendee_id: mine.id,
          room_id: room.id,
          unread_messages: posted.unread.unreadMessages,
          unread_mention: posted.unread.unreadMention ? 1 : 0,
          unread_mention_direct: posted.unread.unreadMentionDirect ? 1 : 0,
          last_read_message: posted.unread.lastReadMessage,
        });
      }
      return mine;
    });
    if (!movesLast && typeof m.metaData.replyToMessageId === 'number') await this.refresh(room, inv, m.metaData.replyToMessageId);
    if (!attendee) return;
    // What the user read on the host (through the proxy, or by writing) is no longer news here.
    if (posted.unread.lastReadMessage > 0) await this.notifications.chatReadUpTo(room.id, [inv.user_id], posted.unread.lastReadMessage);
    if (!movesLast) return;
    const cfg = await this.appConfig.snapshot();
    const subject = proxiedNotificationSubject(m, inv.user_id, attendee.notification_level, cfg.int('default_group_notification') || NotificationLevel.MENTION);
    if (subject) await this.notifications.proxiedMessage(room, inv.user_id, subject, m);
  }

  /**
   * An edit or deletion of the kept last message: the message is read again from the host (its
   * chat context, as the user), mapped and kept (Talk's syncRemoteMessage). A host that cannot be
   * reached, or an answer without the message, leaves the kept one as it was.
   */
  private async refresh(room: RoomRow, inv: InvitationRow, messageId: number): Promise<void> {
    const [kept] = await this.repos.federationSync.lastMessages([room.id]);
    if (!kept || Number(kept.remote_message_id) !== messageId) return;
    let data: unknown;
    try {
      const answer = await this.client.ocs(
        parseRemote(room.remote_server)?.remote ?? room.remote_server,
        'GET',
        `v1/chat/${encodeURIComponent(room.remote_token)}/${messageId}/context`,
        { cloudId: inv.local_cloud_id, secret: inv.access_token },
        { query: { limit: 1 } },
      );
      if (answer.status !== 200) return;
      data = (answer.body as { ocs?: { data?: unknown } } | undefined)?.ocs?.data;
    } catch (e) {
      if (e instanceof RemoteUnreachable) return;
      throw e;
    }
    const found = Array.isArray(data) ? data.map(postedFromRecord).find((x) => x?.remoteMessageId === messageId) : undefined;
    if (!found) return;
    const m = convertPostedMessage(found, this.conversion(room));
    const refreshed = await this.rooms.lockedTransaction(room.id, async (repos) => {
      if (!(await repos.federationSync.refreshLastMessage(keptRow(room.id, m)))) return false;
      // The room's row is what makes the conversation's kept answers stale (its change-feed topic).
      await repos.rooms.update(room.id, { last_activity: Math.max(room.last_activity, nowSeconds()) });
      return true;
    });
    if (refreshed) await this.rooms.announceUpdated(room);
  }

  private conversion(room: RoomRow): ConversionContext {
    return {
      hostRemote: parseRemote(room.remote_server)?.remote ?? room.remote_server,
      ownRemote: this.ownRemote,
      localToken: room.token,
      actor: (type, id) => this.proxy.actor(room, type, id) ?? { type, id },
    };
  }

  /**
   * PARTICIPANT_MODIFIED: the user's permissions set on the host become their permissions in the
   * conversation kept here (Talk's updatePermissions with "set"); other properties are not kept.
   * A user not (or no longer) in the conversation here is RESOURCE_NOT_FOUND, as in Talk.
   */
  async participantModified(n: ReceivedNotification): Promise<void> {
    const inv = await this.repos.federationInvitations.findByShare(n.remoteServerUrl, n.providerId);
    if (!inv || !sameSecret(inv.access_token, n.secret)) throw ocmRefused(400, OCM_RESOURCE_NOT_FOUND);
    if (n.fields.changedProperty !== 'permissions') return;
    const value = n.fields.newValue;
    if (typeof value !== 'number' || !isValidPermissionValue(value)) throw ocmRefused(400, 'Invalid request', [{ name: 'newValue', message: 'invalid' }]);
    const room = Number(inv.local_room_id) > 0 ? await this.repos.rooms.findById(Number(inv.local_room_id)) : undefined;
    if (!room || room.remote_token === '') throw ocmRefused(400, OCM_RESOURCE_NOT_FOUND);
    const changed = await this.rooms.lockedTransaction(room.id, async (repos) => {
      const mine = await repos.attendees.find(room.id, ActorType.USERS, inv.user_id);
      if (!mine) throw ocmRefused(400, OCM_RESOURCE_NOT_FOUND);
      if (mine.permissions === value) return undefined;
      await repos.attendees.update(mine.id, { permissions: value });
      return mine.id;
    });
    if (changed !== undefined) await this.rooms.announceParticipantsChanged(room, [changed]);
  }

  /** Deleted local conversations take their kept message and counters along (subscribed to `rooms.deleted`). */
  async forgetRooms(rooms: RoomRow[]): Promise<void> {
    await this.repos.federationSync.forgetRooms(rooms.filter((r) => r.remote_token !== '').map((r) => r.id));
  }
}

/** The row a kept last message is stored as. */
function keptRow(roomId: number, m: PostedMessage): FederationLastMessageRow {
  return {
    room_id: roomId,
    remote_message_id: m.remoteMessageId,
    actor_type: m.actorType,
    actor_id: m.actorId,
    actor_display_name: m.actorDisplayName,
    message_type: m.messageType,
    system_message: m.systemMessage,
    message: m.message,
    message_parameters: JSON.stringify(m.parameters),
    meta_data: JSON.stringify(m.metaData),
    created_at: m.createdAt,
    expires_at: m.expiresAt,
  };
}
