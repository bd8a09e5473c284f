/** The version `parley --version` prints: the package's own, and the Talk API it speaks. */
import { readFileSync } from 'node:fs';
import { TALK_VERSION } from '../domain/version.js';

// src/cli/version.ts and dist/cli/version.js both sit two levels below package.json.
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export const PARLEY_VERSION: string = pkg.version;

export function versionLine(): string {
  return `parley ${PARLEY_VERSION} (Nextcloud Talk API ${TALK_VERSION})`;
}
