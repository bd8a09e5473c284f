/**
 * A share as Nextcloud's files_sharing API answers it (ShareAPIController::formatShare with
 * Talk's additions for room shares; docs/reference/files.md#the-share-api). Pure.
 */
import type { FileRow } from '../../db/repositories/files.js';
import type { FileShareRow } from '../../db/repositories/file-shares.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import { SHARE_PERMISSIONS_READ, SHARE_TYPE_ROOM } from '../../domain/files/shares.js';
import { RoomType } from '../../domain/constants.js';
import { hasPreview } from '../../domain/files/paths.js';

/** A share with what its answer shows. */
export interface ShareView {
  share: FileShareRow;
  file: FileRow;
  room: RoomRow;
  /** The conversation's name as the caller sees it (the other person in a one-to-one). */
  roomName: string;
  ownerDisplayName: string;
  /** The path of the file in the caller's tree. */
  path: string;
  /** The caller is a participant of the conversation (else it is hidden, as Talk does). */
  participant: boolean;
}

/** `Y-m-d H:i:s` in UTC, Nextcloud's share date format. */
function shareDate(unix: number): string {
  return new Date(unix * 1000).toISOString().replace('T', ' ').slice(0, 19);
}

export function formatShare(v: ShareView, viewer: string, baseUrl: string): Record<string, unknown> {
  const own = v.share.owner === viewer;
  const out: Record<string, unknown> = {
    id: String(v.share.id),
    share_type: SHARE_TYPE_ROOM,
    uid_owner: v.share.owner,
    displayname_owner: v.ownerDisplayName,
    permissions: SHARE_PERMISSIONS_READ,
    can_edit: own,
    can_delete: own,
    stime: v.share.created_at,
    parent: null,
    expiration: v.share.expires_at > 0 ? shareDate(v.share.expires_at) : null,
    token: null,
    uid_file_owner: v.share.owner,
    note: '',
    label: '',
    displayname_file_owner: v.ownerDisplayName,
    path: `/${v.path}`,
    item_type: 'file',
    item_permissions: own ? 27 : 17,
    mimetype: v.file.mimetype,
    has_preview: hasPreview(v.file),
    storage_id: `home::${v.share.owner}`,
    storage: 1,
    item_source: v.file.id,
    file_source: v.file.id,
    file_parent: 0,
    file_target: `/${v.path}`,
    item_size: v.file.size,
    item_mtime: v.file.mtime,
    share_with: v.room.token,
    share_with_displayname: v.roomName,
    share_with_link: `${baseUrl}/index.php/call/${v.room.token}`,
    mail_send: 0,
    hide_download: 0,
    attributes: null,
  };
  // Talk hides the conversation from who is not in it, and shows the link token only for public conversations.
  if (!v.participant) {
    out.share_with = 'private_conversation';
    out.share_with_link = '';
  }
  if (v.room.type === RoomType.PUBLIC) out.token = v.share.token;
  return out;
}
