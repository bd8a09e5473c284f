/**
 * The host's side of federation (docs/reference/federation.md#invitations,
 * docs/reference/federation.md#notifications): a moderator invites `user@remote` (a
 * `federated_users` attendee with its own shared secret, and the OCM share owed to the remote
 * through the outbox in the same transaction); the remote's SHARE_ACCEPTED / SHARE_DECLINED
 * update or remove that attendee; a federated attendee removed here is owed a SHARE_UNSHARED.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Repositories } from '../../db/repositories/index.js';
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import { ActorType, ParticipantType } from '../../domain/constants.js';
import { SYSTEM_ACTOR, type ChatActor } from '../../domain/chat.js';
import { badRequest, notImplemented, ocmRefused } from '../../domain/errors.js';
import { localCloudId, ownRemote, parseCloudId, parseRemote, remoteBaseUrl } from '../../domain/federation/cloud-id.js';
import { federationSwitches } from '../../domain/federation/rules.js';
import { OCM_RESOURCE_NOT_FOUND, ocmNotificationBody, talkShareBody, type ReceivedNotification } from '../../domain/federation/ocm.js';
import type { RoomsService } from '../conversations/rooms.js';
import type { DirectoryService } from '../accounts/directory.js';
import type { OutboxSignal } from '../outbox/signal.js';
import type { RequestContext } from '../platform/request-context.js';
import { newSharedSecret, sameSecret } from './secrets.js';
import type { FederationTrust } from './trust.js';
import { federationOutboxRow, unshareRows } from './outbox-rows.js';
import { nowSeconds } from '../../domain/time.js';
import { roomModifiedFields, type HostRoomChange } from '../../domain/federation/room-modified.js';
import { messagePostedData } from '../../presenters/federation.js';

export class FederationHost {
  /** This server as remotes name it in notifications (its base URL, normalised). */
  readonly ownServerUrl: string;

  constructor(
    private readonly rooms: RoomsService,
    private readonly repos: Repositories,
    private readonly trust: FederationTrust,
    private readonly directory: DirectoryService,
    private readonly signal: OutboxSignal,
    private readonly baseUrl: string,
  ) {
    this.ownServerUrl = remoteBaseUrl(parseRemote(ownRemote(baseUrl))?.remote ?? ownRemote(baseUrl));
  }

  // ---- inviting (POST participants, source=federated_users) ----

  /**
   * Talk's checks in its order (docs/reference/federation.md#switches): 501 `federation` while
   * federation is off, 400 `cloud-id`, `outgoing`, `federation` (inviter not allowed),
   * `trusted-servers`; a remote that may not be reached (plain http, internal address) is 400
   * `cloud-id` too. An attendee invited already stays as it is.
   */
  async invite(ctx: RequestContext, room: RoomRow, actor: ChatActor, newParticipant: string): Promise<void> {
    const cfg = await ctx.config();
    const sw = federationSwitches(cfg);
    if (!sw.enabled) throw notImplemented('federation');
    const cloud = parseCloudId(newParticipant.trim());
    if (!cloud) throw badRequest('cloud-id', 'newParticipant must be a cloud id user@host[:port][/path]');
    if (!sw.outgoing) throw badRequest('outgoing', 'Outgoing federation is disabled');
    if (!(await ctx.inGroupList(cfg.list('federation_allowed_groups')))) throw badRequest('federation', 'You may not invite federated users');
    if (sw.onlyTrusted && !(await this.trust.isTrusted(cloud.remote))) throw badRequest('trusted-servers', 'The server is not a trusted server');
    if (ownRemote(this.baseUrl).toLowerCase() === cloud.remote.toLowerCase()) throw badRequest('cloud-id', 'The cloud id names a user of this server');
    if (await this.trust.refusal(cloud.remote)) throw badRequest('cloud-id', 'The server of this cloud id may not be reached');

    const inviter = ctx.user!;
    // The share names the conversation's owner (Talk: its owner attendee), read before the lock.
    const owner = (await this.repos.attendees.moderatorsOf(room.id)).find(
      (a) => a.participant_type === ParticipantType.OWNER && a.actor_type === ActorType.USERS,
    );
    const ownerUser = owner ? await this.directory.users.find(owner.actor_id) : undefined;
    const added = await this.rooms.lockedTransaction(room.id, async (repos, trx) => {
      if (await repos.attendees.find(room.id, ActorType.FEDERATED_USERS, cloud.id)) return undefined;
      const [attendee] = await this.rooms.addAttendees(
        room.id,
        [{ actorType: ActorType.FEDERATED_USERS, actorId: cloud.id, displayName: cloud.id, participantType: ParticipantType.USER }],
        repos,
      );
      const secret = newSharedSecret();
      await repos.attendees.update(attendee.id, { access_token: secret, invited_cloud_id: cloud.id });
      // Its messages owe MESSAGE_POSTED from now on (docs/federation.md "Keeping the conversation current").
      await repos.federationSync.markFederated(room.id);
      const body = talkShareBody({
        shareWith: cloud.id,
        roomToken: room.token,
        providerId: attendee.id,
        owner: localCloudId(ownerUser?.id ?? inviter.id, this.baseUrl),
        ownerDisplayName: ownerUser?.display_name || ownerUser?.id || inviter.display_name || inviter.id,
        sharedBy: localCloudId(inviter.id, this.baseUrl),
        sharedByDisplayName: inviter.display_name || inviter.id,
        secret,
        invitedCloudId: cloud.id,
        roomName: room.name,
        roomType: room.type,
      });
      await repos.outbox.insert([federationOutboxRow(cloud.remote, { kind: 'share', attendeeId: attendee.id, body })]);
      await this.rooms.announceAttendeesAddedIn(trx, room, actor, [attendee]);
      return attendee;
    });
    if (added) this.signal.kick();
  }

  /** The remote refused the share for good: the invitation failed, the attendee goes. */
  async shareRefused(attendeeId: number): Promise<void> {
    const attendee = await this.repos.attendees.findById(attendeeId);
    if (!attendee || attendee.actor_type !== ActorType.FEDERATED_USERS) return;
    await this.removeFederated(attendee, { ...SYSTEM_ACTOR });
  }

  // ---- notifications from remotes ----

  /** SHARE_ACCEPTED: the display name (and the cloud id as the remote writes it, on the same server). */
  async shareAccepted(n: ReceivedNotification): Promise<void> {
    const attendee = await this.attendeeOf(n);
    const name = typeof n.fields.displayName === 'string' ? n.fields.displayName.trim().slice(0, 255) : '';
    const claimed = typeof n.fields.cloudId === 'string' ? parseCloudId(n.fields.cloudId) : undefined;
    const current = parseCloudId(attendee.actor_id);
    const patch: { display_name?: string; actor_id?: string } = {};
    if (name) patch.display_name = name;
    // Only a spelling of the same server's user: a remote cannot rename its user into another server's.
    if (claimed && current && claimed.remote === current.remote && claimed.id !== attendee.actor_id) patch.actor_id = claimed.id;
    if (Object.keys(patch).length) {
      await this.rooms.lockedTransaction(attendee.room_id, async (repos) => {
        await repos.attendees.update(attendee.id, patch);
      });
    }
  }

  /** SHARE_DECLINED: the attendee leaves. */
  async shareDeclined(n: ReceivedNotification): Promise<void> {
    const attendee = await this.attendeeOf(n);
    await this.removeFederated(attendee, { type: attendee.actor_type, id: attendee.actor_id, displayName: attendee.display_name });
  }

  /**
   * The federated attendee a remote's notification is about: `providerId` names it, its secret
   * must match, and the remote must be the server of its cloud id. Anything else is the same
   * 400 RESOURCE_NOT_FOUND, so a guess learns nothing.
   */
  async attendeeOf(n: ReceivedNotification): Promise<AttendeeRow> {
    const attendee = await this.repos.attendees.findById(n.providerId);
    const cloud = attendee ? parseCloudId(attendee.actor_id) : undefined;
    if (!attendee || attendee.actor_type !== ActorType.FEDERATED_USERS || !cloud || !sameSecret(attendee.access_token, n.secret)) {
      throw ocmRefused(400, OCM_RESOURCE_NOT_FOUND);
    }
    if (remoteBaseUrl(cloud.remote) !== n.remoteServerUrl) throw ocmRefused(400, OCM_RESOURCE_NOT_FOUND);
    return attendee;
  }

  private async removeFederated(attendee: AttendeeRow, actor: ChatActor): Promise<void> {
    const room = await this.repos.rooms.findById(attendee.room_id);
    if (!room) return;
    await this.rooms.lockedTransaction(room.id, async (repos, trx) => {
      const current = await repos.attendees.findById(attendee.id);
      if (!current) return;
      await repos.attendees.deleteByIds([current.id]);
      await this.rooms.announceAttendeesRemovedIn(trx, room, actor, [current]);
    });
    this.signal.kick();
  }

  /** After a deletion committed (subscribed to `rooms.deleted`): SHARE_UNSHARED rows it wrote are sent now. */
  deliverOwed(): void {
    this.signal.kick();
  }

  // ---- changes here owed to remotes (subscribed to room.changed) ----

  /**
   * A change Talk tells remotes of (the name, description, type, read-only, lobby) is owed to
   * every federated attendee's server as ROOM_MODIFIED, written in the changing transaction and
   * sent through the outbox (docs/reference/federation.md#proxied-requests).
   */
  async roomChanged(e: { trx: Kysely<Database>; room: RoomRow; change: HostRoomChange }): Promise<void> {
    // Only conversations with federated attendees owe anything (migration 0920).
    const fields = e.room.has_federation ? roomModifiedFields(e.change, e.room) : undefined;
    if (!fields) return;
    const repos = this.repos.withTransaction(e.trx);
    const rows = (await repos.federationSync.federatedAttendees(e.room.id)).flatMap((a) => {
      const cloud = parseCloudId(a.actor_id);
      if (!cloud || !a.access_token) return [];
      const body = ocmNotificationBody('ROOM_MODIFIED', a.id, {
        remoteServerUrl: this.ownServerUrl,
        sharedSecret: a.access_token,
        remoteToken: e.room.token,
        ...fields,
      });
      return [federationOutboxRow(cloud.remote, { kind: 'notification', body })];
    });
    if (rows.length === 0) return;
    await repos.outbox.insert(rows);
    this.signal.kickSoon();
  }

  /**
   * A federated attendee's permissions set here are owed to their server as PARTICIPANT_MODIFIED
   * (`changedProperty` `permissions`), written in the changing transaction
   * (docs/reference/federation.md#keeping-the-conversation-current).
   */
  async permissionsChanged(e: { trx: Kysely<Database>; room: RoomRow; attendee: AttendeeRow; permissions: number }): Promise<void> {
    const a = e.attendee;
    const cloud = a.actor_type === ActorType.FEDERATED_USERS ? parseCloudId(a.actor_id) : undefined;
    if (!cloud || !a.access_token) return;
    const body = ocmNotificationBody('PARTICIPANT_MODIFIED', a.id, {
      remoteServerUrl: this.ownServerUrl,
      sharedSecret: a.access_token,
      remoteToken: e.room.token,
      changedProperty: 'permissions',
      newValue: e.permissions,
      oldValue: a.permissions,
    });
    await this.repos.withTransaction(e.trx).outbox.insert([federationOutboxRow(cloud.remote, { kind: 'notification', body })]);
    this.signal.kickSoon();
  }

  // ---- messages here owed to remotes (subscribed to chat.federated-post.trx) ----

  /**
   * A message that moves lastMessage is owed to every federated attendee's server as
   * MESSAGE_POSTED (docs/reference/federation.md#keeping-the-conversation-current), written in
   * the posting transaction: the message as the chat shows it, and the attendee's unread
   * counters as they are after it (the author's read marker and the mentions moved already).
   */
  async messagePosted(e: { trx: Kysely<Database>; room: RoomRow; messageId: number }): Promise<void> {
    const repos = this.repos.withTransaction(e.trx);
    const attendees = await repos.federationSync.federatedAttendees(e.room.id);
    if (attendees.length === 0) return;
    const now = nowSeconds();
    const [row] = await repos.chatMessages.findByIds([e.messageId], now);
    if (!row) return;
    const parent = row.parent_id ? (await repos.chatMessages.findByIds([row.parent_id], now))[0] : undefined;
    const messageData = messagePostedData(row, parent, e.room);
    const rows = attendees.flatMap((a) => {
      const cloud = parseCloudId(a.actor_id);
      if (!cloud || !a.access_token) return [];
      const read = Number(a.last_read_message);
      const body = ocmNotificationBody('MESSAGE_POSTED', a.id, {
        remoteServerUrl: this.ownServerUrl,
        sharedSecret: a.access_token,
        remoteToken: e.room.token,
        messageData,
        unreadInfo: {
          // The counters as a conversation record computes them (services/conversations/conversation-view.ts).
          unreadMessages: Math.max(0, Number(a.chat_count) - (read > 0 ? Number(a.read_count) : 0)),
          unreadMention: a.last_mention_message > 0 && read < a.last_mention_message,
          unreadMentionDirect: a.last_mention_direct > 0 && read < a.last_mention_direct,
          lastReadMessage: read,
        },
      });
      return [federationOutboxRow(cloud.remote, { kind: 'notification', body })];
    });
    if (rows.length === 0) return;
    await repos.outbox.insert(rows);
    this.signal.kickSoon();
  }

  // ---- removals here (subscribed to room.attendees-removed.trx) ----

  /**
   * Federated attendees removed by someone else (a moderator, the operator, a decline's own
   * removal excepted) are owed a SHARE_UNSHARED, written in the removing transaction.
   */
  async attendeesRemoved(e: { trx: Kysely<Database>; actor: ChatActor; attendees: AttendeeRow[] }): Promise<void> {
    const rows = unshareRows(
      e.attendees.filter((a) => a.actor_type === ActorType.FEDERATED_USERS && !(e.actor.type === a.actor_type && e.actor.id === a.actor_id)),
    );
    if (rows.length === 0) return;
    await this.repos.withTransaction(e.trx).outbox.insert(rows);
    this.signal.kickSoon();
  }
}
