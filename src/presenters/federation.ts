/**
 * Federation records in Talk's shapes (docs/reference/federation.md#invitations), pure: the
 * invitation of `GET /api/v1/federation/invitation`, and the notification that tells a user
 * about one (Talk's `remote_talk_share`, with Accept and Decline actions).
 */
import type { InvitationRow } from '../db/repositories/federation-invitations.js';
import type { NotificationAction, NotificationRecord, RichParameters } from './notification.js';
import { isoSeconds, parseJson } from './notification.js';
import type { NotificationRow } from '../db/repositories/notifications.js';
import { parseCloudId } from '../domain/federation/cloud-id.js';
import type { ChatMessageRead } from '../db/repositories/chat-messages.js';
import type { RoomRow } from '../db/repositories/rooms.js';
import type { FederationLastMessageRow } from '../db/repositories/federation-sync.js';
import { formatChatMessage } from './chat-message.js';

export interface InvitationRecord {
  id: number;
  userId: string;
  state: number;
  localCloudId: string;
  remoteServerUrl: string;
  remoteToken: string;
  remoteAttendeeId: number;
  inviterCloudId: string;
  inviterDisplayName: string;
  roomName: string;
  /** The conversation's token here; empty while the invitation has no local conversation. */
  localToken: string;
}

export function formatInvitation(row: InvitationRow, localToken = ''): InvitationRecord {
  return {
    id: Number(row.id),
    userId: row.user_id,
    state: Number(row.state),
    localCloudId: row.local_cloud_id,
    remoteServerUrl: row.remote_server_url,
    remoteToken: row.remote_token,
    remoteAttendeeId: Number(row.remote_attendee_id),
    inviterCloudId: row.inviter_cloud_id,
    inviterDisplayName: row.inviter_display_name || row.inviter_cloud_id,
    roomName: row.room_name,
    localToken,
  };
}

/** The subject parameters stored with a `remote_talk_share` notification. */
export interface RemoteShareParams {
  sharedByDisplayName: string;
  sharedByFederatedId: string;
  roomName: string;
  serverUrl: string;
  roomToken: string;
}

/** The `remote_talk_share` notification of a pending invitation (object id: the invitation's id). */
export function presentRemoteShareNotification(row: NotificationRow, base: string, apiVersion: 'v1' | 'v2'): NotificationRecord {
  const sp = parseJson(row.subject_params) as Partial<RemoteShareParams>;
  const inviter = parseCloudId(String(sp.sharedByFederatedId ?? ''));
  const params: RichParameters = {
    user1: {
      type: 'user',
      id: inviter?.user ?? String(sp.sharedByFederatedId ?? ''),
      name: String(sp.sharedByDisplayName || sp.sharedByFederatedId || ''),
      server: inviter?.remote ?? '',
    },
    roomName: { type: 'highlight', id: `${sp.serverUrl ?? ''}::${sp.roomToken ?? ''}`, name: String(sp.roomName ?? '') },
  };
  const invitationUrl = `${base}/ocs/v2.php/apps/spreed/api/v1/federation/invitation/${row.object_id}`;
  const actions: NotificationAction[] = [
    { label: 'Accept', link: invitationUrl, type: 'POST', primary: true },
    { label: 'Decline', link: invitationUrl, type: 'DELETE', primary: false },
  ];
  const subjectRich = '{user1} invited you to a federated conversation';
  const out: NotificationRecord = {
    notification_id: Number(row.id),
    app: row.app,
    user: row.user_id,
    datetime: isoSeconds(Number(row.created_at)),
    object_type: row.object_type,
    object_id: row.object_id,
    subject: `${params.user1.name} invited you to a federated conversation`,
    message: params.roomName.name,
    link: `${base}/index.php/apps/spreed`,
    actions,
  };
  if (apiVersion === 'v2') {
    out.subjectRich = subjectRich;
    out.subjectRichParameters = { user1: params.user1 };
    out.messageRich = '{roomName}';
    out.messageRichParameters = { roomName: params.roomName };
    out.icon = `${base}/apps/spreed/img/app-dark.svg`;
    out.shouldNotify = true;
  }
  const { actions: acts, ...rest } = out;
  return { ...rest, actions: acts };
}

// ---- keeping proxied conversations current (docs/reference/federation.md#keeping-the-conversation-current) ----

/** Talk's DateTime::ATOM: 2026-12-06T08:00:00+00:00. */
function atom(unix: number): string {
  return new Date(unix * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/**
 * The `messageData` of a MESSAGE_POSTED the host sends for a message: the message as its chat
 * shows it to nobody in particular (texts of system messages are neutral), its rich parameters
 * as JSON text, its dates as ATOM, and in `metaData` the silent flag and the author and id of
 * the message it replies to.
 */
export function messagePostedData(row: ChatMessageRead, parent: ChatMessageRead | undefined, room: Pick<RoomRow, 'token' | 'type'>): Record<string, unknown> {
  const m = formatChatMessage(row, { token: room.token, roomType: room.type }, false);
  const metaData: Record<string, unknown> = {};
  if (row.silent) metaData.silent = true;
  if (parent) {
    metaData.replyToActorType = parent.actor_type;
    metaData.replyToActorId = parent.actor_id;
    metaData.replyToMessageId = parent.id;
  }
  const params = m.messageParameters;
  return {
    remoteMessageId: row.id,
    actorType: m.actorType,
    actorId: m.actorId,
    actorDisplayName: m.actorDisplayName,
    messageType: m.messageType,
    systemMessage: m.systemMessage,
    expirationDatetime: row.expires_at > 0 ? atom(row.expires_at) : '',
    message: m.message,
    messageParameter: JSON.stringify(params && !Array.isArray(params) ? params : []),
    creationDatetime: atom(row.created_at),
    metaData: JSON.stringify(Object.keys(metaData).length ? metaData : []),
  };
}

/**
 * The host's last message kept here, as a conversation record's `lastMessage` shows it (Talk's
 * ProxyCacheMessage), with the host's message id and the local token.
 */
export function formatProxiedMessage(row: FederationLastMessageRow, token: string): Record<string, unknown> {
  const params = parseJson(row.message_parameters);
  return {
    id: Number(row.remote_message_id),
    token,
    actorType: row.actor_type,
    actorId: row.actor_id,
    actorDisplayName: row.actor_display_name,
    timestamp: Number(row.created_at),
    expirationTimestamp: Number(row.expires_at),
    messageType: row.message_type,
    systemMessage: row.system_message,
    message: row.message,
    messageParameters: Object.keys(params).length ? params : [],
  };
}
