/**
 * The invited side of federation (docs/reference/federation.md#invitations): a share received on
 * `/ocm/shares` becomes a pending invitation of a user here (and a notification telling them);
 * the user lists, accepts (the host is told at once: SHARE_ACCEPTED) or declines (SHARE_DECLINED,
 * owed through the outbox) it; the host's SHARE_UNSHARED withdraws it.
 */
import type { Repositories } from '../../db/repositories/index.js';
import type { InvitationRow } from '../../db/repositories/federation-invitations.js';
import { ApiError, badRequest, gone, notFound, ocmRefused } from '../../domain/errors.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { FederationProxy } from './proxy.js';
import { localCloudId, parseRemote } from '../../domain/federation/cloud-id.js';
import { federationSwitches } from '../../domain/federation/rules.js';
import { readRoomModified } from '../../domain/federation/room-modified.js';
import { isRefusal, OCM_RESOURCE_NOT_FOUND, ocmNotificationBody, readShare, type ReceivedNotification } from '../../domain/federation/ocm.js';
import { nowSeconds } from '../../domain/time.js';
import { formatInvitation, type InvitationRecord } from '../../presenters/federation.js';
import type { DirectoryService } from '../accounts/directory.js';
import type { CallerRoom, RoomsService } from '../conversations/rooms.js';
import { ActorType, ParticipantType } from '../../domain/constants.js';
import type { NotificationService } from '../notifications/notifications.js';
import type { OutboxSignal } from '../outbox/signal.js';
import type { AppConfigService } from '../platform/app-config.js';
import type { RequestContext } from '../platform/request-context.js';
import { federationOutboxRow } from './outbox-rows.js';
import { RemoteUnreachable, type FederationClient } from './remote-client.js';
import { sameSecret } from './secrets.js';
import type { FederationTrust } from './trust.js';

const PENDING = 0;
const ACCEPTED = 1;

/** The remote part a stored server URL names (`https://` dropped, `http://` kept). */
function remoteOf(serverUrl: string): string {
  return parseRemote(serverUrl)?.remote ?? serverUrl;
}

export class FederationInvitations {
  constructor(
    private readonly repos: Repositories,
    private readonly rooms: RoomsService,
    private readonly appConfig: AppConfigService,
    private readonly directory: DirectoryService,
    private readonly notifications: NotificationService,
    private readonly trust: FederationTrust,
    private readonly client: FederationClient,
    private readonly signal: OutboxSignal,
    private readonly baseUrl: string,
    /** This server as remotes name it (FederationHost.ownServerUrl). */
    private readonly ownServerUrl: string,
    private readonly proxy: FederationProxy,
  ) {}

  // ---- POST /ocm/shares ----

  /** Stores a received Talk share for a user here: 201 `{recipientDisplayName}`, or an OCM refusal. */
  async receiveShare(body: unknown): Promise<{ recipientDisplayName: string }> {
    const cfg = await this.appConfig.snapshot();
    const sw = federationSwitches(cfg);
    if (!sw.enabled || !sw.incoming) throw ocmRefused(503, 'Server does not support talk federation');
    const share = readShare(body);
    if (isRefusal(share)) throw ocmRefused(share.status, share.message, share.validationErrors);
    const user = await this.directory.users.find(share.userId);
    const groups = user ? await this.directory.groupsOf(user.id) : [];
    const inList = (list: string[]) => list.length === 0 || list.some((g) => groups.includes(g));
    if (!user || !user.enabled || !inList(cfg.list('allowed_groups')) || !inList(cfg.list('federation_allowed_groups'))) {
      throw ocmRefused(400, 'User does not exist');
    }
    const remote = remoteOf(share.remoteServerUrl);
    if (sw.onlyTrusted && !(await this.trust.isTrusted(remote))) throw ocmRefused(400, 'Server is not trusted');
    if (await this.trust.refusal(remote)) throw ocmRefused(400, 'Server may not be reached');
    const { invitation, created } = await this.repos.federationInvitations.insertOnce({
      user_id: user.id,
      access_token: share.secret,
      remote_server_url: share.remoteServerUrl,
      remote_token: share.roomToken,
      remote_attendee_id: share.remoteAttendeeId,
      inviter_cloud_id: share.inviterCloudId,
      inviter_display_name: share.inviterDisplayName.slice(0, 255),
      local_cloud_id: share.invitedCloudId,
      room_name: share.roomName,
      room_type: share.roomType,
      created_at: nowSeconds(),
    });
    // The same share again (a retry after a lost answer) with another secret is not the same share.
    if (!created && !sameSecret(invitation.access_token, share.secret)) throw ocmRefused(400, 'Share exists already');
    if (created) {
      await this.notifications.remoteInvitation(user.id, Number(invitation.id), {
        sharedByDisplayName: invitation.inviter_display_name,
        sharedByFederatedId: invitation.inviter_cloud_id,
        roomName: invitation.room_name,
        serverUrl: invitation.remote_server_url,
        roomToken: invitation.remote_token,
      });
    }
    return { recipientDisplayName: user.display_name || user.id };
  }

  // ---- the invited user's API ----

  async list(ctx: RequestContext): Promise<InvitationRecord[]> {
    const rows = await this.repos.federationInvitations.forUser(ctx.userId!);
    const tokens = new Map<number, string>();
    for (const id of new Set(rows.map((r) => Number(r.local_room_id)).filter((id) => id > 0))) {
      const room = await this.repos.rooms.findById(id);
      if (room) tokens.set(id, room.token);
    }
    return rows.map((row) => formatInvitation(row, tokens.get(Number(row.local_room_id)) ?? ''));
  }

  private async mine(ctx: RequestContext, id: number): Promise<InvitationRow> {
    const inv = await this.repos.federationInvitations.find(id);
    if (!inv || inv.user_id !== ctx.userId) throw notFound('invitation', 'The invitation does not exist');
    return inv;
  }

  /**
   * Accepts: 404 `invitation`, 400 `state` when not pending; the host is told at once and a host
   * that cannot be reached or refuses is 410 `remote` (the invitation stays pending).
   */
  async accept(ctx: RequestContext, id: number): Promise<CallerRoom> {
    const inv = await this.mine(ctx, id);
    if (Number(inv.state) !== PENDING || !(await this.repos.federationInvitations.setState(inv.id, PENDING, ACCEPTED))) {
      throw badRequest('state', 'The invitation was accepted already');
    }
    const body = ocmNotificationBody('SHARE_ACCEPTED', Number(inv.remote_attendee_id), {
      remoteServerUrl: this.ownServerUrl,
      sharedSecret: inv.access_token,
      message: 'Recipient accepted the share',
      displayName: ctx.user!.display_name || ctx.user!.id,
      cloudId: localCloudId(ctx.user!.id, this.baseUrl),
    });
    let told = false;
    try {
      const answer = await this.client.postOcm(remoteOf(inv.remote_server_url), 'notifications', body);
      told = answer.status >= 200 && answer.status < 300;
    } catch (e) {
      if (!(e instanceof RemoteUnreachable)) throw e;
    }
    if (!told) {
      await this.repos.federationInvitations.setState(inv.id, ACCEPTED, PENDING);
      throw gone('remote', 'The host of the conversation could not be reached');
    }
    await this.notifications.forgetRemoteInvitation(inv.user_id, Number(inv.id));
    return this.keepLocally(inv, ctx.user!);
  }

  /**
   * The conversation kept here for an accepted invitation (Talk's remote room): one per host
   * conversation, with its own token, `remote_server` and `remote_token`; the user a participant.
   */
  private async keepLocally(inv: InvitationRow, user: { id: string; display_name: string }): Promise<CallerRoom> {
    const cfg = await this.appConfig.snapshot();
    const now = nowSeconds();
    const { room, joined } = await this.rooms.transaction(async (repos) => {
      const room = await repos.federationInvitations.insertRoomOnce({
        ...this.rooms.roomDefaults(cfg, now),
        token: await this.rooms.newToken(cfg, repos),
        name: inv.room_name,
        type: inv.room_type,
        remote_server: inv.remote_server_url,
        remote_token: inv.remote_token,
      });
      const joined = !(await repos.attendees.find(room.id, ActorType.USERS, user.id));
      if (joined) {
        await repos.attendees.insertIgnoringDuplicates([
          this.rooms.attendeeRow(room.id, now, {
            actorType: ActorType.USERS,
            actorId: user.id,
            displayName: user.display_name,
            participantType: ParticipantType.USER,
          }),
        ]);
      }
      await repos.federationInvitations.setLocalRoom(inv.id, room.id);
      return { room, joined };
    });
    if (joined) await this.rooms.announceAttendeesAdded(room, [user.id]);
    const attendee = await this.repos.attendees.find(room.id, ActorType.USERS, user.id);
    return { room, attendee };
  }

  /** Declines: 404 `invitation`, 400 `state` when accepted already; the host is told through the outbox. */
  async decline(ctx: RequestContext, id: number): Promise<void> {
    const inv = await this.mine(ctx, id);
    const removed = await this.rooms.transaction(async (repos) => {
      if (!(await repos.federationInvitations.remove(inv.id, PENDING))) return false;
      const body = ocmNotificationBody('SHARE_DECLINED', Number(inv.remote_attendee_id), {
        remoteServerUrl: this.ownServerUrl,
        sharedSecret: inv.access_token,
        message: 'Recipient declined the share',
      });
      await repos.outbox.insert([federationOutboxRow(remoteOf(inv.remote_server_url), { kind: 'notification', body })]);
      return true;
    });
    if (!removed) throw badRequest('state', 'The invitation was accepted already; leave the conversation instead');
    this.signal.kick();
    await this.notifications.forgetRemoteInvitation(inv.user_id, Number(inv.id));
  }

  // ---- leaving a proxied conversation (DELETE participants/self) ----

  /**
   * The user leaves the conversation kept here for a host: the host is told first (the federated
   * attendee leaves there; a host that cannot be reached is 422 `remote` and nothing changes
   * here), then the user's attendee and invitation go here, and the conversation with its last user.
   */
  async leave(ctx: RequestContext, room: RoomRow): Promise<void> {
    try {
      await this.proxy.forward(ctx, room, 'DELETE', 'v4/room/{token}/participants/self');
    } catch (e) {
      // Gone there already (removed, deleted): leaving here still goes on.
      if (!(e instanceof ApiError && e.status === 404)) throw e;
    }
    await this.dropLocal(room, ctx.userId!);
  }

  /** The user's attendee and invitation in the local conversation go (and the conversation with its last user). */
  private async dropLocal(room: RoomRow, userId: string): Promise<void> {
    const left = await this.rooms.lockedTransaction(room.id, async (repos) => {
      const inv = await repos.federationInvitations.forLocalRoom(userId, room.id);
      if (inv) await repos.federationInvitations.remove(inv.id);
      const mine = await repos.attendees.find(room.id, ActorType.USERS, userId);
      if (mine) await repos.attendees.deleteByIds([mine.id]);
      return (await repos.attendees.forRoom(room.id)).length;
    });
    await this.rooms.announceAttendeesRemoved(room, [userId], []);
    if (left === 0) await this.rooms.deleteRooms([room]);
  }

  // ---- notifications from hosts ----

  /** SHARE_UNSHARED: the host removed the user; the invitation goes. */
  async shareUnshared(n: ReceivedNotification): Promise<void> {
    const inv = await this.repos.federationInvitations.findByShare(n.remoteServerUrl, n.providerId);
    if (!inv || !sameSecret(inv.access_token, n.secret)) throw ocmRefused(400, OCM_RESOURCE_NOT_FOUND);
    await this.repos.federationInvitations.remove(inv.id);
    await this.notifications.forgetRemoteInvitation(inv.user_id, Number(inv.id));
    // Accepted: the conversation kept here loses the user too.
    const room = Number(inv.local_room_id) > 0 ? await this.repos.rooms.findById(Number(inv.local_room_id)) : undefined;
    if (room) await this.dropLocal(room, inv.user_id);
  }

  /**
   * ROOM_MODIFIED: the host's name, description, type, read-only state or lobby is applied to the
   * conversation kept here (a rename also to the invitation); other properties are not kept; a
   * value that does not fit is 400 and changes nothing.
   */
  async roomModified(n: ReceivedNotification): Promise<void> {
    const inv = await this.repos.federationInvitations.findByShare(n.remoteServerUrl, n.providerId);
    if (!inv || !sameSecret(inv.access_token, n.secret)) throw ocmRefused(400, OCM_RESOURCE_NOT_FOUND);
    const patch = readRoomModified(n.fields);
    if (isRefusal(patch)) throw ocmRefused(patch.status, patch.message, patch.validationErrors);
    if (!patch) return;
    if (patch.name !== undefined) await this.repos.federationInvitations.rename(inv.id, patch.name);
    const room = Number(inv.local_room_id) > 0 ? await this.repos.rooms.findById(Number(inv.local_room_id)) : undefined;
    if (!room || (Object.keys(patch) as Array<keyof typeof patch>).every((k) => room[k] === patch[k])) return;
    await this.repos.rooms.update(room.id, patch);
    await this.rooms.announceUpdated({ ...room, ...patch });
  }

  /** A deleted user's invitations go with them (subscribed to `user.deleting`). */
  async forgetUser(userId: string): Promise<void> {
    await this.repos.federationInvitations.deleteForUser(userId);
  }
}
