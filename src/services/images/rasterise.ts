/**
 * Generated avatars are served as PNG, rendered from their SVG with Noto Sans, as Nextcloud
 * renders its own (server lib/private/Avatar/Avatar.php ships NotoSans-Regular.ttf). The font
 * comes from an npm package (SIL Open Font License), so the initials look the same on a machine
 * with no fonts installed; librsvg finds it through a fontconfig file written at first use that
 * lists the bundled font first and the system's own configuration after it (for scripts Noto
 * Sans lacks).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { BoundedMap } from '../../domain/bounded-map.js';

const FONT_FILE = createRequire(import.meta.url).resolve('@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf');

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The fontconfig file Parley's renderer uses (exported for tests). */
export function fontconfigText(systemConfig: string | undefined): string {
  const include = systemConfig ?? '/etc/fonts/fonts.conf';
  return (
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
    `  <dir>${escapeXml(path.dirname(FONT_FILE))}</dir>\n` +
    `  <include ignore_missing="yes">${escapeXml(include)}</include>\n` +
    `  <alias binding="strong"><family>sans-serif</family><prefer><family>Noto Sans</family></prefer></alias>\n` +
    `</fontconfig>\n`
  );
}

let configured = false;

/**
 * Points fontconfig at the bundled font. fontconfig reads FONTCONFIG_FILE once, when libvips
 * first lays out text, so this runs before the first SVG is rendered. Written atomically
 * (temp + rename): several processes may start at once and all write the same text.
 */
function configureFonts(): void {
  if (configured) return;
  configured = true;
  const text = fontconfigText(process.env.FONTCONFIG_FILE);
  const dir = path.join(os.tmpdir(), `parley-fonts-${createHash('sha1').update(text).digest('hex').slice(0, 12)}`);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'fonts.conf');
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text.replace('</fontconfig>', `  <cachedir>${escapeXml(path.join(dir, 'cache'))}</cachedir>\n</fontconfig>`));
  fs.renameSync(temp, file);
  process.env.FONTCONFIG_FILE = file;
}

/** Rendered avatars by SVG text: the SVG names every input, so an entry is never stale. */
const rendered = new BoundedMap<string, Promise<Buffer>>(512);

/** The PNG of a generated SVG (cached per process). */
export function svgToPng(svg: string): Promise<Buffer> {
  const key = createHash('sha1').update(svg).digest('hex');
  let png = rendered.get(key);
  if (!png) {
    configureFonts();
    png = sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer();
    png.catch(() => rendered.delete(key));
    rendered.set(key, png);
  }
  return png;
}
