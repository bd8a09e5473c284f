/**
 * Generated conversation avatars (talk-reference.md §4.4: served when there is no custom one):
 * the other user's initials for one-to-one conversations, an icon for group and public ones,
 * each with a dark-theme variant. Pure; the output depends only on the inputs, so its hash is a
 * stable ETag.
 */
import { createHash } from 'node:crypto';

export interface GeneratedAvatar {
  svg: string;
}

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Up to two initials of a display name (first letters of the first and last word). */
export function initials(displayName: string): string {
  const words = displayName.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return '?';
  const first = [...words[0]][0] ?? '';
  const last = words.length > 1 ? ([...words[words.length - 1]][0] ?? '') : '';
  return (first + last).toUpperCase();
}

/** A background colour derived from an id, as Nextcloud colours user avatars per user. */
export function colourFor(id: string, dark: boolean): string {
  const hue = parseInt(createHash('md5').update(id).digest('hex').slice(0, 4), 16) % 360;
  return `hsl(${hue}, ${dark ? '45%' : '60%'}, ${dark ? '35%' : '55%'})`;
}

function frame(background: string, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512" viewBox="0 0 512 512"><rect width="512" height="512" fill="${background}"/>${body}</svg>`;
}

/** One-to-one: the other user's initials on their colour. */
export function initialsAvatar(userId: string, displayName: string, dark: boolean): GeneratedAvatar {
  const text = escapeXml(initials(displayName || userId));
  const fg = dark ? '#e6e6e6' : '#ffffff';
  const body = `<text x="256" y="256" dy=".35em" text-anchor="middle" font-family="sans-serif" font-size="200" fill="${fg}">${text}</text>`;
  return { svg: frame(colourFor(userId, dark), body) };
}

/** Group and public conversations: a people icon (public adds a link badge). */
export function iconAvatar(kind: 'group' | 'public', dark: boolean): GeneratedAvatar {
  const bg = dark ? '#3b3b3b' : '#6ea8dc';
  const fg = dark ? '#d8d8d8' : '#ffffff';
  let body =
    `<circle cx="196" cy="200" r="64" fill="${fg}"/><path d="M92 372c0-62 47-104 104-104s104 42 104 104z" fill="${fg}"/>` +
    `<circle cx="330" cy="218" r="50" fill="${fg}" opacity=".8"/><path d="M262 372c6-48 34-80 68-80 44 0 90 32 90 80z" fill="${fg}" opacity=".8"/>`;
  if (kind === 'public') {
    body += `<circle cx="392" cy="120" r="56" fill="none" stroke="${fg}" stroke-width="16"/><path d="M336 120h112M392 64c-24 32-24 80 0 112M392 64c24 32 24 80 0 112" stroke="${fg}" stroke-width="10" fill="none"/>`;
  }
  return { svg: frame(bg, body) };
}

/**
 * An emoji on a colour (Talk's `POST /room/{token}/avatar/emoji`; colour six hex digits, empty
 * for Talk's neutral grey). The same image serves the light and dark variants, as in Talk.
 */
export function emojiAvatar(emoji: string, color: string): GeneratedAvatar {
  const bg = color === '' ? '#dbdbdb' : `#${color.toLowerCase()}`;
  const body = `<text x="256" y="256" dy=".35em" text-anchor="middle" font-size="320">${escapeXml(emoji)}</text>`;
  return { svg: frame(bg, body) };
}

/**
 * The stored form of an emoji avatar: the `rooms.avatar` column (`<version>.svg`, the version
 * a hash of the image so it changes with it) and the `room_avatars` row without ids and time.
 */
export function emojiAvatarRow(emoji: string, color: string): { column: string; row: { version: string; content_type: string; data: Buffer } } {
  const { svg } = emojiAvatar(emoji, color);
  const version = createHash('sha1').update(svg).digest('hex').slice(0, 16);
  return { column: `${version}.svg`, row: { version, content_type: 'image/svg+xml', data: Buffer.from(svg) } };
}
