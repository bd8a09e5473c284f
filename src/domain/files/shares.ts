/**
 * Files shared into conversations, the pure rules (docs/reference/files.md): Nextcloud's share
 * type for conversations, Talk's `talkMetaData`, the kind of shared item a file is listed as,
 * where a received share appears in a reader's tree, and the `{file}` rich object. No I/O.
 */
import { trimMessage } from '../chat.js';

/** Nextcloud's share type for a Talk conversation (IShare::TYPE_ROOM; docs/reference/files.md#the-share-api). */
export const SHARE_TYPE_ROOM = 10;
/** Read (1): what a room share grants; shown as `permissions` of the share. */
export const SHARE_PERMISSIONS_READ = 1;
/** Nextcloud's permission bits of a received read-only file in the rich object (read 1 + share 16; docs/reference/files.md#the-file-rich-object). */
export const RECEIVED_FILE_PERMISSIONS = 17;
/** The owner's own file: read, update, delete, share (1 + 2 + 8 + 16; a file has no create bit). */
export const OWN_FILE_PERMISSIONS = 27;
/** Length of the public link token (Nextcloud's share tokens are 15 characters). */
export const SHARE_TOKEN_LENGTH = 15;

/** The message types a file share may carry (docs/reference/files.md#talkmetadata). */
export type FileMessageType = 'comment' | 'voice-message' | 'record-audio' | 'record-video';

/** `talkMetaData` as Talk's share listener keeps it. */
export interface TalkMetaData {
  messageType: FileMessageType;
  caption: string;
  replyTo: number;
  silent: boolean;
}

/** Voice messages are kept only for these types (docs/reference/files.md#talkmetadata). */
const VOICE_TYPES = new Set(['audio/mpeg', 'audio/wav']);

/**
 * `talkMetaData` as Talk's listener reads it: bad JSON or not an object is no metadata; a
 * `voice-message` of another type than audio/mpeg or audio/wav is a comment; an unknown
 * messageType is dropped; a blank caption is dropped, others trimmed; replyTo a positive whole
 * number (else none); silent a boolean (or "true"/1).
 */
export function parseTalkMetaData(raw: string, mimetype: string): TalkMetaData {
  let data: Record<string, unknown> = {};
  if (raw !== '') {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) data = parsed as Record<string, unknown>;
    } catch {
      // json_decode gives null: no metadata.
    }
  }
  let messageType: FileMessageType = 'comment';
  if (data.messageType === 'voice-message' && VOICE_TYPES.has(mimetype)) messageType = 'voice-message';
  else if (data.messageType === 'record-audio' || data.messageType === 'record-video') messageType = data.messageType;
  const caption = typeof data.caption === 'string' ? trimMessage(data.caption) : '';
  const reply =
    typeof data.replyTo === 'number' ? data.replyTo : typeof data.replyTo === 'string' && /^\d{1,15}$/.test(data.replyTo) ? Number(data.replyTo) : 0;
  const silent = data.silent === true || data.silent === 'true' || data.silent === 1;
  return { messageType, caption, replyTo: Number.isSafeInteger(reply) && reply > 0 ? reply : 0, silent };
}

/** The kind of shared item a file is listed as (docs/reference/chat.md#shared-items classification). */
export function fileItemType(messageType: FileMessageType, mimetype: string): 'recording' | 'voice' | 'audio' | 'media' | 'file' {
  if (messageType === 'record-audio' || messageType === 'record-video') return 'recording';
  if (messageType === 'voice-message') return 'voice';
  if (mimetype.startsWith('audio/')) return 'audio';
  if (mimetype.startsWith('image/') || mimetype.startsWith('video/')) return 'media';
  return 'file';
}

/**
 * The names a received share tries in the reader's folder, as Nextcloud makes a mount point
 * unique: `name`, then `base (2).ext`, `base (3).ext`, ...
 */
export function candidateName(name: string, n: number): string {
  if (n <= 1) return name;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}

/** What a file share message stores about the file when it is posted (the object is rendered per reader). */
export interface SharedFileSnapshot {
  id: string;
  name: string;
  size: string;
  etag: string;
  mimetype: string;
  'preview-available': 'yes' | 'no';
  width?: string;
  height?: string;
  blurhash?: string;
  /** The path in the owner's tree and the owner, for the owner's own view. */
  ownerPath: string;
  owner: string;
  /** The files app link users get (`/index.php/f/{id}`) and the public link others get (`/index.php/s/{token}`), absolute. */
  link: string;
  publicLink: string;
}

/** The reader a `{file}` object is rendered for (docs/reference/files.md#the-file-rich-object). */
export type FileReader = { kind: 'owner' } | { kind: 'user'; path: string | undefined } | { kind: 'other' };

/**
 * Talk's `{file}` rich object (SystemMessage parser getFileFromShare) for one reader: users see
 * their own path and the files app link `/index.php/f/{id}`; everybody else (guests) the name as
 * path and the public link `/index.php/s/{token}`.
 */
export function fileRichObject(snap: SharedFileSnapshot, reader: FileReader): Record<string, string> {
  const user = reader.kind !== 'other';
  const path = reader.kind === 'owner' ? snap.ownerPath : reader.kind === 'user' ? (reader.path ?? snap.name) : snap.name;
  const out: Record<string, string> = {
    type: 'file',
    id: snap.id,
    name: snap.name,
    size: snap.size,
    path,
    link: user ? snap.link : snap.publicLink,
    etag: snap.etag,
    permissions: String(reader.kind === 'owner' ? OWN_FILE_PERMISSIONS : RECEIVED_FILE_PERMISSIONS),
    mimetype: snap.mimetype,
    'preview-available': snap['preview-available'],
    'hide-download': 'no',
  };
  if (snap.width !== undefined && snap.height !== undefined) {
    out.width = snap.width;
    out.height = snap.height;
  }
  if (snap.blurhash !== undefined) out.blurhash = snap.blurhash;
  return out;
}

/** The share and metadata a file share message stores (Talk's `{share, metaData}` of `file_shared`). */
export interface FileShareParameters {
  share: number;
  file: SharedFileSnapshot;
  metaData: { messageType: FileMessageType; caption?: string; mimeType: string };
}

/** The stored parameters of a file share message, if the message is one. */
export function fileShareParameters(parameters: Record<string, unknown>): FileShareParameters | undefined {
  const p = parameters as Partial<FileShareParameters>;
  return typeof p.share === 'number' && p.file && typeof p.file === 'object' && p.metaData && typeof p.metaData === 'object'
    ? (p as FileShareParameters)
    : undefined;
}

/**
 * The rich objects of the mentions in a file share's caption (`mention-user1`, ...), stored
 * beside the share's own parameters as a message's are (docs/reference/files.md#talkmetadata).
 */
export function captionMentions(parameters: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parameters)) if (key.startsWith('mention-')) out[key] = value;
  return out;
}

/** A file share's stored parameters with the caption's mentions replaced by `mentions`. */
export function withCaptionMentions(parameters: Record<string, unknown>, mentions: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parameters)) if (!key.startsWith('mention-')) out[key] = value;
  return { ...out, ...mentions };
}
