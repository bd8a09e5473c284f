/**
 * Generated conversation avatars (docs/reference/conversations.md#avatars: served when there is no custom one):
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

// ---- user and guest avatars, as Nextcloud generates them (server lib/private/Avatar/Avatar.php) ----

type Rgb = [number, number, number];

/** Nextcloud's `Color::mixPalette`: `steps` colours from `a` towards `b`, truncated to integers. */
function mixPalette(steps: number, a: Rgb, b: Rgb): Rgb[] {
  const out: Rgb[] = [a];
  const step = [0, 1, 2].map((i) => (b[i] - a[i]) / steps);
  for (let i = 1; i < steps; i++) out.push([0, 1, 2].map((c) => Math.trunc(a[c] + step[c] * i)) as Rgb);
  return out;
}

const STEPS = 6;
/** red → yellow → Nextcloud blue → red, 18 colours. */
const PALETTE: Rgb[] = [
  ...mixPalette(STEPS, [182, 70, 157], [221, 203, 85]),
  ...mixPalette(STEPS, [221, 203, 85], [0, 130, 201]),
  ...mixPalette(STEPS, [0, 130, 201], [182, 70, 157]),
];

/**
 * Nextcloud's `avatarBackgroundColor`: lower-cased text, md5 unless it already looks like one,
 * non-hex characters dropped, the sum of the hex digits modulo 18 picks the palette entry.
 */
export function nextcloudColour(text: string): Rgb {
  let hash = text.toLowerCase();
  if (!/^([0-9a-f]{4}-?){8}$/.test(hash)) hash = createHash('md5').update(hash, 'utf8').digest('hex');
  hash = hash.replace(/[^0-9a-f]+/g, '');
  let sum = 0;
  for (const ch of hash) sum += parseInt(ch, 16);
  return PALETTE[sum % (STEPS * 3)];
}

/** Nextcloud's `getAvatarText`: the upper-cased first letter of the first two space-separated parts ('?' when empty). */
export function nextcloudInitials(displayName: string): string {
  if (displayName === '') return '?';
  const i = displayName.indexOf(' ');
  const parts = i < 0 ? [displayName] : [displayName.slice(0, i), displayName.slice(i + 1)];
  return parts.map((p) => ([...p][0] ?? '').toUpperCase()).join('');
}

const hex = (c: Rgb) => c.map((v) => v.toString(16).padStart(2, '0')).join('');

/**
 * The generated avatar of a user or guest (`getAvatarVector`): the name's colour as text on the
 * same colour blended 10 % over white (light) or black (dark), `size` pixels square.
 */
export function nameAvatar(displayName: string, size: number, dark: boolean): GeneratedAvatar {
  const fg = nextcloudColour(displayName);
  const base = dark ? 0 : 255;
  const bg = fg.map((v) => Math.trunc(0.9 * base + 0.1 * v)) as Rgb;
  const letter = escapeXml(nextcloudInitials(displayName));
  return {
    svg:
      `<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n` +
      `<svg width="${size}" height="${size}" version="1.1" viewBox="0 0 500 500" xmlns="http://www.w3.org/2000/svg">` +
      `<rect width="100%" height="100%" fill="#${hex(bg)}"></rect>` +
      `<text x="50%" y="350" style="font-weight:normal;font-size:280px;font-family:'Noto Sans';text-anchor:middle;fill:#${hex(fg)}">${letter}</text></svg>`,
  };
}

/** Stands for the theme's background in a stored emoji avatar without a colour (docs/reference/conversations.md#avatars). */
const THEMING_PLACEHOLDER = '{{THEMING}}';

/**
 * An emoji on a colour (Talk's `POST /room/{token}/avatar/emoji`; colour six hex digits). Without
 * a colour the background is the theme's, filled in when served (`themedAvatar`), as in Talk.
 */
export function emojiAvatar(emoji: string, color: string): GeneratedAvatar {
  const bg = `#${color === '' ? THEMING_PLACEHOLDER : color.toLowerCase()}`;
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

/**
 * A stored avatar as served in the light or dark variant: an emoji avatar stored without a colour
 * gets Talk's grey for that theme (docs/reference/conversations.md#avatars); anything else as stored.
 */
export function themedAvatar(data: Buffer, contentType: string, dark: boolean): Buffer {
  if (contentType !== 'image/svg+xml') return data;
  const svg = data.toString('utf8');
  if (!svg.includes(THEMING_PLACEHOLDER)) return data;
  return Buffer.from(svg.replaceAll(THEMING_PLACEHOLDER, dark ? '3b3b3b' : '6b6b6b'));
}
