/**
 * The admin settings page in a real headless Chromium (docs/operators.md "Admin settings page"):
 * login form, 403 for non-admins, one setting of each kind changed and seen again after a reload,
 * a value refused by the page (registry validation) and one refused by the server, write-only
 * secrets, a phone-sized layout, the signaling servers' live status, the trusted servers of
 * federation added and removed through the page. Saves a screenshot to test-artifacts/.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS, chromiumSkip, launchChromium, type Browser } from './helpers/browser.js';
import { ADMIN, createUser, dialects, passwordOf, startParley, type Parley } from './helpers/parley.js';

const skip = chromiumSkip('admin page');

async function logIn(page: Page, url: string, user: string, password: string) {
  await page.goto(`${url}/settings/admin/talk`);
  assert.match(page.url(), /\/login\?redirect_url=/);
  await page.fill('#user', user);
  await page.fill('#password', password);
  return Promise.all([page.waitForNavigation(), page.click('form.login button')]).then(([res]) => res);
}

const field = (page: Page, key: string) => page.locator(`.field[data-key="${key}"]`);

async function save(page: Page, key: string) {
  const section = page.locator('section', { has: field(page, key) });
  await section.locator('button.save').click();
  await section
    .locator('.status')
    .filter({ hasText: /Saved|refused|Nothing/ })
    .waitFor();
  return (await section.locator('.status').textContent()) ?? '';
}

for (const dialect of dialects()) {
  describe(`admin settings page in Chromium [${dialect}]`, { skip }, () => {
    let p: Parley;
    let context: BrowserContext;
    let page: Page;
    let browser: Browser;

    before(async () => {
      p = await startParley(dialect);
      await createUser(p, 'alice', { groups: ['staff'] });
      await p.services.directory.createGroup('support');
      await p.services.directory.createGroup('ghost');
      browser = await launchChromium({ width: 1100, height: 900 });
      ({ context, page } = browser);
    });
    after(async () => {
      await browser?.close();
      await p?.close();
    });

    it('the login form gives one answer for an unknown account and a wrong password', async () => {
      const wrong = await logIn(page, p.url, ADMIN.user, 'not-the-password');
      assert.equal(wrong!.status(), 401);
      const a = await page.locator('.error').textContent();
      const unknown = await logIn(page, p.url, 'nobody-here', 'not-the-password');
      assert.equal(unknown!.status(), 401);
      const b = await page.locator('.error').textContent();
      assert.equal(a, 'Wrong login or password.');
      assert.equal(a, b);
      assert.equal((await context.cookies()).length, 0);
    });

    it('a non-admin who logs in gets 403 and no settings', async () => {
      const res = await logIn(page, p.url, 'alice', passwordOf('alice'));
      assert.equal(res!.status(), 403);
      assert.match((await page.textContent('body'))!, /administrators only/);
      assert.equal(await page.locator('#parley-state').count(), 0);
      // The OCS API refuses the same session too.
      const api = await page.evaluate(async () => {
        const r = await fetch('/ocs/v2.php/apps/provisioning_api/api/v1/config/apps/spreed/stun_servers?format=json', {
          headers: { 'OCS-APIRequest': 'true' },
        });
        return r.status;
      });
      assert.equal(api, 403);
      await Promise.all([page.waitForNavigation(), page.click('form.logout button')]);
      assert.match(page.url(), /\/login$/);
    });

    it('the session cookie is HttpOnly and SameSite=Strict', async () => {
      const res = await logIn(page, p.url, ADMIN.user, ADMIN.password);
      assert.equal(res!.status(), 200);
      const [cookie] = await context.cookies();
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Strict');
      await page.locator('section').first().waitFor();
    });

    it('changes one setting of each kind and sees them after a reload; secrets stay write-only', async () => {
      // list of groups
      await field(page, 'start_conversations').locator('input[value="staff"]').check();
      assert.equal(await save(page, 'start_conversations'), 'Saved.');
      // list of servers (with a shared secret)
      const sig = field(page, 'signaling_servers');
      await sig.locator('button.add').click();
      await sig.locator('input[aria-label="Server URL"]').fill('https://signaling.example.org');
      await sig.locator('input[type=password]').fill('sig-shared-secret-123');
      // boolean (same section)
      await field(page, 'hide_signaling_warning').locator('input[type=checkbox]').check();
      assert.equal(await save(page, 'signaling_servers'), 'Saved.');
      // STUN list
      const stun = field(page, 'stun_servers');
      await stun.locator('button.add').click();
      await stun.locator('input').last().fill('stun.example.org:3478');
      assert.equal(await save(page, 'stun_servers'), 'Saved.');
      // integer
      await field(page, 'password_policy_min_length').locator('input').fill('12');
      assert.equal(await save(page, 'password_policy_min_length'), 'Saved.');
      // string and secret (SIP bridge)
      await field(page, 'sip_bridge_dialin_info').locator('textarea').fill('Dial +49 30 1234567, then the PIN');
      await field(page, 'sip_bridge_shared_secret').locator('input').fill('sip-bridge-secret-456');
      assert.equal(await save(page, 'sip_bridge_shared_secret'), 'Saved.');

      const cfg = await p.services.appConfig.snapshot();
      assert.deepEqual(cfg.list('start_conversations'), ['staff']);
      assert.deepEqual(cfg.json('signaling_servers', {}), {
        servers: [{ server: 'https://signaling.example.org', verify: true }],
        secret: 'sig-shared-secret-123',
      });
      assert.equal(cfg.get('hide_signaling_warning'), 'yes');
      assert.deepEqual(cfg.json('stun_servers', []), ['stun.example.org:3478']);
      assert.equal(cfg.get('password_policy_min_length'), '12');
      assert.equal(cfg.get('sip_bridge_dialin_info'), 'Dial +49 30 1234567, then the PIN');
      assert.equal(cfg.get('sip_bridge_shared_secret'), 'sip-bridge-secret-456');

      await page.reload();
      await page.locator('section').first().waitFor();
      const html = await page.content();
      assert.ok(!html.includes('sip-bridge-secret-456'), 'the SIP secret reached the browser');
      assert.ok(!html.includes('sig-shared-secret-123'), 'the signaling secret reached the browser');
      assert.equal(await field(page, 'start_conversations').locator('input[value="staff"]').isChecked(), true);
      assert.equal(await field(page, 'start_conversations').locator('input[value="support"]').isChecked(), false);
      assert.equal(await sig.locator('input[aria-label="Server URL"]').inputValue(), 'https://signaling.example.org');
      assert.equal(await sig.locator('input[type=password]').inputValue(), '');
      assert.match((await sig.locator('input[type=password]').getAttribute('placeholder'))!, /^set/);
      assert.equal(await field(page, 'hide_signaling_warning').locator('input').isChecked(), true);
      assert.equal(await stun.locator('input').first().inputValue(), 'stun.example.org:3478');
      assert.equal(await field(page, 'password_policy_min_length').locator('input').inputValue(), '12');
      assert.equal(await field(page, 'sip_bridge_dialin_info').locator('textarea').inputValue(), 'Dial +49 30 1234567, then the PIN');
      assert.equal(await field(page, 'sip_bridge_shared_secret').locator('input').inputValue(), '');
      assert.match((await field(page, 'sip_bridge_shared_secret').locator('input').getAttribute('placeholder'))!, /^set/);

      // Saving the server list again without retyping its secret keeps the stored secret.
      await sig.locator('input[aria-label="Validate TLS certificate"]').uncheck();
      assert.equal(await save(page, 'signaling_servers'), 'Saved.');
      const again = await p.services.appConfig.snapshot();
      assert.deepEqual(again.json('signaling_servers', {}), {
        servers: [{ server: 'https://signaling.example.org', verify: false }],
        secret: 'sig-shared-secret-123',
      });
    });

    it('shows the registry error for an out-of-range value and the server error for a refused one', async () => {
      await field(page, 'password_policy_min_length').locator('input').fill('5000');
      assert.match(await save(page, 'password_policy_min_length'), /refused/);
      assert.equal(await field(page, 'password_policy_min_length').locator('.error').textContent(), 'password_policy_min_length must be at most 1024');

      // The group disappears after the page was loaded: only the server can know.
      await p.services.directory.deleteGroup('ghost');
      await field(page, 'start_calls_groups').locator('input[value="ghost"]').check();
      assert.match(await save(page, 'start_calls_groups'), /refused/);
      const err = field(page, 'start_calls_groups').locator('.error');
      assert.equal(await err.isVisible(), true);
      assert.match((await err.textContent())!, /unknown group "ghost"/);

      const cfg = await p.services.appConfig.snapshot();
      assert.equal(cfg.get('password_policy_min_length'), '12');
      assert.deepEqual(cfg.list('start_calls_groups'), []);
    });

    it('fits a phone-sized screen and saves a screenshot', async () => {
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(ARTIFACTS, `admin-page-${dialect}.png`), fullPage: false });
      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      await page.locator('section').first().waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px on a phone`);
      await page.screenshot({ path: path.join(ARTIFACTS, `admin-page-phone-${dialect}.png`) });
    });

    it('shows whether each configured signaling server answers its welcome endpoint (checked by Parley)', async () => {
      // A listener that answers like nextcloud-spreed-signaling's /api/v1/welcome, and a port nobody listens on.
      const welcome = http.createServer((req, res) => {
        if (req.url === '/api/v1/welcome')
          res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"nextcloud-spreed-signaling":"Welcome","version":"9.9.9"}');
        else res.writeHead(404).end();
      });
      await new Promise<void>((r) => welcome.listen(0, '127.0.0.1', r));
      const up = `http://127.0.0.1:${(welcome.address() as { port: number }).port}`;
      const dead = await new Promise<number>((r) => {
        const s = http.createServer().listen(0, '127.0.0.1', () => {
          const port = (s.address() as { port: number }).port;
          s.close(() => r(port));
        });
      });
      try {
        await p.services.appConfig.set('signaling_servers', {
          servers: [
            { server: up, verify: true },
            { server: `http://127.0.0.1:${dead}`, verify: true },
          ],
          secret: 's',
        });
        await page.reload();
        const items = page.locator('ul.signaling-status li');
        await page.locator('ul.signaling-status li[data-state="ok"]').waitFor();
        await page.locator('ul.signaling-status li[data-state="down"]').waitFor();
        assert.equal(await items.count(), 2);
        assert.equal(await items.nth(0).textContent(), `${up}: answers (version 9.9.9)`);
        assert.match((await items.nth(1).textContent())!, /does not answer \(CAN_NOT_CONNECT\)/);
      } finally {
        await new Promise((r) => welcome.close(r));
      }
    });

    it('lists the setup checks, each finding with its fix (run by Parley, as parley doctor)', async () => {
      // The signaling servers of the test above are gone by now: both are findings.
      await page.reload();
      await page.locator('ul.setup-checks[data-state="done"]').waitFor();
      assert.equal(await page.locator('nav#sections a').first().textContent(), 'Setup checks');
      assert.equal(await page.locator('ul.setup-checks li[data-check="database"]').getAttribute('data-status'), 'ok');
      assert.equal(await page.locator('ul.setup-checks li[data-check="data-directory"]').getAttribute('data-status'), 'ok');
      const down = page.locator('ul.setup-checks li[data-check="signaling:1"]');
      assert.equal(await down.getAttribute('data-status'), 'error');
      assert.match((await down.textContent())!, /does not answer/);
      assert.match((await down.locator('.fix').textContent())!, /Start the signaling server/);
      assert.match((await page.locator('ul.setup-checks li[data-check="base-url"] .fix').textContent())!, /Set BASE_URL/);
    });

    it('lists, adds and removes trusted servers of federation, and shows the server refusing one', async () => {
      await p.services.federation.trust.add('seed.example.org');
      await page.reload();
      const block = page.locator('#trusted-servers');
      const items = block.locator('ul.trusted-servers li');
      await block.locator('ul.trusted-servers[data-state="done"]').waitFor();
      assert.deepEqual(await items.allTextContents(), ['seed.example.org✕']);

      await block.locator('#trusted-server-url').fill('https://Cloud.Example.org/');
      await block.locator('button.add').click();
      await items.filter({ hasText: 'cloud.example.org' }).waitFor();
      assert.equal(await block.locator('#trusted-server-url').inputValue(), '');
      assert.deepEqual(await p.services.federation.trust.list(), ['cloud.example.org', 'seed.example.org']);

      const error = block.locator('.error[role="alert"]');
      await block.locator('#trusted-server-url').fill('not a server');
      await block.locator('button.add').click();
      await error.filter({ hasText: 'host[:port][/path]' }).waitFor();
      await block.locator('#trusted-server-url').fill('cloud.example.org');
      await block.locator('button.add').click();
      await error.filter({ hasText: 'Server is already in the list of trusted servers.' }).waitFor();
      assert.equal(await items.count(), 2);
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await block.screenshot({ path: path.join(ARTIFACTS, `admin-trusted-servers-${dialect}.png`) });

      await block.locator('button[aria-label="Remove cloud.example.org"]').click();
      await items.filter({ hasText: 'cloud.example.org' }).waitFor({ state: 'detached' });
      assert.deepEqual(await p.services.federation.trust.list(), ['seed.example.org']);
      await page.reload();
      await block.locator('ul.trusted-servers[data-state="done"]').waitFor();
      assert.deepEqual(await items.allTextContents(), ['seed.example.org✕']);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px`);
    });
  });
}
