/**
 * Open Cloud Mesh bodies of Talk's federation (docs/reference/federation.md#invitations,
 * docs/reference/federation.md#notifications), pure: the share and notification a server sends,
 * and the strict reading of the ones it receives (every field checked for type and length; what
 * does not fit is refused, nothing is guessed).
 */
import { RoomType } from '../constants.js';
import { parseCloudId, parseRemote, remoteBaseUrl } from './cloud-id.js';
import { TALK_PROTOCOL_NAME, TALK_ROOM_RESOURCE } from './rules.js';

export const NOTIFICATION_TYPES = ['SHARE_ACCEPTED', 'SHARE_DECLINED', 'SHARE_UNSHARED', 'ROOM_MODIFIED', 'MESSAGE_POSTED', 'PARTICIPANT_MODIFIED'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** What a receiver answers for a notification that names nothing it knows; the sender stops retrying. */
export const OCM_RESOURCE_NOT_FOUND = 'RESOURCE_NOT_FOUND';

/** Longest shared secret accepted (attendee and invitation columns). */
export const SECRET_MAX_LENGTH = 64;

export interface TalkShareInput {
  /** The invited user's cloud id (`user@remote` of the receiving server). */
  shareWith: string;
  roomToken: string;
  /** The host's attendee id. */
  providerId: number;
  owner: string;
  ownerDisplayName: string;
  sharedBy: string;
  sharedByDisplayName: string;
  secret: string;
  invitedCloudId: string;
  roomName: string;
  roomType: number;
}

/** The body of `POST {endPoint}/shares` inviting `shareWith` to a Talk room. */
export function talkShareBody(s: TalkShareInput): Record<string, unknown> {
  return {
    shareWith: s.shareWith,
    name: s.roomToken,
    description: '',
    providerId: String(s.providerId),
    owner: s.owner,
    ownerDisplayName: s.ownerDisplayName,
    sharedBy: s.sharedBy,
    sharedByDisplayName: s.sharedByDisplayName,
    shareType: 'user',
    resourceType: TALK_ROOM_RESOURCE,
    protocol: {
      name: TALK_PROTOCOL_NAME,
      options: { sharedSecret: s.secret },
      invitedCloudId: s.invitedCloudId,
      roomName: s.roomName,
      roomType: s.roomType,
    },
  };
}

/** The body of `POST {endPoint}/notifications`. */
export function ocmNotificationBody(type: NotificationType, providerId: number, notification: Record<string, unknown>): Record<string, unknown> {
  return { notificationType: type, resourceType: TALK_ROOM_RESOURCE, providerId: String(providerId), notification };
}

/** A refusal of a received body: the HTTP status and the OCM `message`. */
export interface OcmRefusal {
  status: number;
  message: string;
  validationErrors?: Array<{ name: string; message: string }>;
}

export interface ReceivedShare {
  /** The local user the share is for. */
  userId: string;
  invitedCloudId: string;
  roomToken: string;
  remoteAttendeeId: number;
  /** The host's base URL (scheme included). */
  remoteServerUrl: string;
  secret: string;
  inviterCloudId: string;
  inviterDisplayName: string;
  roomName: string;
  roomType: number;
}

const str = (v: unknown, max: number): v is string => typeof v === 'string' && v.length > 0 && v.length <= max;
const optStr = (v: unknown, max: number): v is string | undefined | null => v === undefined || v === null || (typeof v === 'string' && v.length <= max);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalid(fields: string[]): OcmRefusal {
  return { status: 400, message: 'Invalid request', validationErrors: fields.map((name) => ({ name, message: 'invalid' })) };
}

/** Reads a received `POST /ocm/shares` body for a Talk room, or says why it is refused. */
export function readShare(body: unknown): ReceivedShare | OcmRefusal {
  if (!isObject(body)) return invalid(['body']);
  const bad: string[] = [];
  const { shareWith, name, providerId, owner, ownerDisplayName, sharedBy, sharedByDisplayName, shareType, resourceType, protocol } = body;
  if (!str(shareWith, 255)) bad.push('shareWith');
  if (!str(name, 64) || !/^[a-z0-9]+$/i.test(name)) bad.push('name');
  if (!(typeof providerId === 'string' || typeof providerId === 'number') || !/^[1-9]\d{0,17}$/.test(String(providerId))) bad.push('providerId');
  if (!str(owner, 255)) bad.push('owner');
  if (!optStr(ownerDisplayName, 255)) bad.push('ownerDisplayName');
  if (!optStr(sharedBy, 255)) bad.push('sharedBy');
  if (!optStr(sharedByDisplayName, 255)) bad.push('sharedByDisplayName');
  if (!str(shareType, 32)) bad.push('shareType');
  if (!str(resourceType, 32)) bad.push('resourceType');
  if (!isObject(protocol)) bad.push('protocol');
  if (bad.length) return invalid(bad);
  if (resourceType !== TALK_ROOM_RESOURCE) return { status: 501, message: 'Resource type not supported' };
  if (shareType !== 'user') return { status: 501, message: 'Support for sharing with non-users not implemented yet' };
  const p = protocol as Record<string, unknown>;
  const options = isObject(p.options) ? p.options : {};
  const secret = options.sharedSecret;
  const roomType = Number(p.roomType);
  if (
    !(typeof p.roomType === 'number' || (typeof p.roomType === 'string' && /^\d+$/.test(p.roomType))) ||
    (roomType !== RoomType.GROUP && roomType !== RoomType.PUBLIC)
  ) {
    return { status: 400, message: 'roomType is not a valid number' };
  }
  const ownerId = parseCloudId(owner as string);
  const target = parseCloudId(shareWith as string);
  const invited = typeof p.invitedCloudId === 'string' ? parseCloudId(p.invitedCloudId) : target;
  const inviter = typeof sharedBy === 'string' && sharedBy !== '' ? parseCloudId(sharedBy) : ownerId;
  if (!str(secret, SECRET_MAX_LENGTH) || !str(p.roomName, 255) || !ownerId || !target || !invited || !inviter || !str(ownerDisplayName, 255)) {
    return { status: 400, message: 'required request data not found' };
  }
  const inviterName = typeof sharedBy === 'string' && sharedBy !== '' ? (sharedByDisplayName ?? '') : ownerDisplayName;
  return {
    userId: target.user,
    invitedCloudId: invited.id,
    roomToken: name as string,
    remoteAttendeeId: Number(providerId),
    remoteServerUrl: remoteBaseUrl(ownerId.remote),
    secret,
    inviterCloudId: inviter.id,
    inviterDisplayName: String(inviterName ?? ''),
    roomName: p.roomName,
    roomType,
  };
}

export interface ReceivedNotification {
  type: NotificationType;
  providerId: number;
  /** The sender's base URL, as it names itself. */
  remoteServerUrl: string;
  secret: string;
  fields: Record<string, unknown>;
}

/** Reads a received `POST /ocm/notifications` body, or says why it is refused. */
export function readNotification(body: unknown): ReceivedNotification | OcmRefusal {
  if (!isObject(body)) return invalid(['body']);
  const { notificationType, resourceType, providerId, notification } = body;
  const bad: string[] = [];
  if (!str(notificationType, 64)) bad.push('notificationType');
  if (!str(resourceType, 32)) bad.push('resourceType');
  if (!(typeof providerId === 'string' || typeof providerId === 'number') || !/^[1-9]\d{0,17}$/.test(String(providerId))) bad.push('providerId');
  if (!isObject(notification)) bad.push('notification');
  if (bad.length) return invalid(bad);
  if (resourceType !== TALK_ROOM_RESOURCE) return { status: 501, message: 'Resource type not supported' };
  if (!(NOTIFICATION_TYPES as readonly string[]).includes(notificationType as string)) return invalid(['notificationType']);
  const n = notification as Record<string, unknown>;
  const server = typeof n.remoteServerUrl === 'string' ? parseRemote(n.remoteServerUrl) : undefined;
  if (!str(n.sharedSecret, SECRET_MAX_LENGTH) || !server) return invalid(['notification']);
  return {
    type: notificationType as NotificationType,
    providerId: Number(providerId),
    remoteServerUrl: remoteBaseUrl(server.remote),
    secret: n.sharedSecret,
    fields: n,
  };
}

export function isRefusal(x: unknown): x is OcmRefusal {
  return isObject(x) && typeof x.status === 'number' && typeof x.message === 'string';
}
