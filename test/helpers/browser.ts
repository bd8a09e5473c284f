/**
 * Headless Debian Chromium for the browser tests (playwright-core, no browser download): the
 * skip rule (CI must have it), one launch with a throw-away profile, and where screenshots go.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const TIMEOUT = 10_000;
export const ARTIFACTS = path.resolve('test-artifacts');
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** `false`, or why the browser test is skipped (never in CI). */
export function chromiumSkip(what: string): false | string {
  if (fs.existsSync(CHROMIUM)) return false;
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: CI must run the browser test (apt-get install chromium)`);
  const why = `Chromium is not installed (${CHROMIUM}); install it with \`apt-get install chromium\` to run the browser test`;
  console.log(`# skipping the ${what} browser test: ${why}`);
  return why;
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchChromium(viewport: { width: number; height: number }): Promise<Browser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(TIMEOUT);
  return {
    context,
    page,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
