/**
 * Paths inside a user's file tree (docs/files.md). A path is the list of its names joined by
 * '/', without leading or trailing slash; '' is the root. Names are checked the way Nextcloud's
 * filesystem refuses them: no '.', '..', NUL or other control characters, no '/' or '\' inside
 * a name (an encoded %2F is not a separator), at most 255 bytes, and the whole path at most
 * FILE_PATH_MAX characters. Pure.
 */
import { IMAGE_MAX_PIXELS } from '../images.js';

export const FILE_PATH_MAX = 4000;
const NAME_MAX_BYTES = 255;

/** Why a name is refused, or null. */
export function nameProblem(name: string): string | null {
  if (name === '') return 'empty names are not allowed';
  if (name === '.' || name === '..') return `"${name}" is not allowed as a name`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'names must not contain control characters (NUL included)';
  if (/[/\\]/.test(name)) return 'names must not contain "/" or "\\"';
  if (Buffer.byteLength(name) > NAME_MAX_BYTES) return `names are at most ${NAME_MAX_BYTES} bytes`;
  if (name.trim() !== name && name.trim() === '') return 'names must not be blank';
  return null;
}

/**
 * A path from its percent-encoded URL segments (what follows the user in a WebDAV URL): each
 * segment decoded once, empty segments (doubled or trailing slashes) dropped. Returns the path
 * or the reason it is refused.
 */
export function pathFromUrlSegments(raw: string): { path: string } | { problem: string } {
  const names: string[] = [];
  for (const segment of raw.split('/')) {
    if (segment === '') continue;
    let name: string;
    try {
      name = decodeURIComponent(segment);
    } catch {
      return { problem: 'the path is not valid percent-encoded UTF-8' };
    }
    names.push(name);
  }
  return pathFromNames(names);
}

/** A path from a plain (not URL-encoded) string such as a setting's value ('/Talk' → 'Talk'). */
export function pathFromText(text: string): { path: string } | { problem: string } {
  return pathFromNames(text.split('/').filter((name) => name !== ''));
}

function pathFromNames(names: string[]): { path: string } | { problem: string } {
  for (const name of names) {
    const problem = nameProblem(name);
    if (problem) return { problem };
  }
  const path = names.join('/');
  if (path.length > FILE_PATH_MAX) return { problem: `paths are at most ${FILE_PATH_MAX} characters` };
  return { path };
}

/** The parent folder's path ('' for a top-level entry); undefined for the root. */
export function parentOf(path: string): string | undefined {
  if (path === '') return undefined;
  const at = path.lastIndexOf('/');
  return at < 0 ? '' : path.slice(0, at);
}

/** The last name of a path ('' for the root). */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The folders above a path, nearest last, root ('') first. */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let p = parentOf(path); p !== undefined; p = parentOf(p)) out.unshift(p);
  return out;
}

/** Whether `path` is `folder` or inside it. */
export function isWithin(path: string, folder: string): boolean {
  return folder === '' || path === folder || path.startsWith(`${folder}/`);
}

/** The URL form of a path: each name percent-encoded, joined by '/'. */
export function encodePath(path: string): string {
  return path === '' ? '' : path.split('/').map(encodeURIComponent).join('/');
}

const MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  svg: 'image/svg+xml',
  txt: 'text/plain',
  md: 'text/markdown',
  pdf: 'application/pdf',
  zip: 'application/zip',
  json: 'application/json',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/ogg',
  wav: 'audio/wav',
  webm: 'video/webm',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  odt: 'application/vnd.oasis.opendocument.text',
};

/** Image types Parley makes previews of (decoded by libvips). */
const PREVIEW_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * Whether a file has a preview: an image type libvips decodes whose size, known from its header,
 * is within the pixel limit (a decompression bomb has none).
 */
export function hasPreview(row: { is_dir: number; mimetype: string; width: number | null; height: number | null }): boolean {
  return !row.is_dir && PREVIEW_TYPES.has(row.mimetype) && row.width !== null && row.height !== null && row.width * row.height <= IMAGE_MAX_PIXELS;
}

/** Folders' mimetype, as Nextcloud reports it. */
export const FOLDER_MIMETYPE = 'httpd/unix-directory';

/** The mimetype Nextcloud would give a file of this name (by extension; octet-stream otherwise). */
export function mimetypeFor(name: string): string {
  const at = name.lastIndexOf('.');
  return (at > 0 && MIME[name.slice(at + 1).toLowerCase()]) || 'application/octet-stream';
}
