/**
 * Both login flows in a real headless Chromium (docs/reference/accounts-and-login.md#login-flow-v2, docs/reference/accounts-and-login.md#login-flow-v1), as the Talk apps
 * drive them: v2 — init over HTTP, the browser opens `login`, logs in, grants, the "app" polls
 * and uses the app password against an OCS endpoint; v1 — the webview opens /index.php/login/flow
 * with OCS-APIRequest, logs in, grants, and the `nc://login/...` redirect carries credentials that
 * work. Also: a phone-sized viewport (no horizontal scrolling, labelled fields) and that no page
 * shows the password. Saves screenshots to test-artifacts/.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { ARTIFACTS, chromiumSkip, launchChromium, TIMEOUT, type Browser } from './helpers/browser.js';
import { basic, call, createUser, dialects, passwordOf, startParley, type Parley } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';

const skip = chromiumSkip('login flow');
const PHONE = { width: 360, height: 740 };

/** The page fits a phone: nothing wider than the viewport, every input has a label. */
async function assertPhoneFriendly(page: Page) {
  const { scroll, client, unlabelled } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
    unlabelled: [...document.querySelectorAll('input:not([type=hidden])')].filter((i) => !(i as HTMLInputElement).labels?.length).length,
  }));
  assert.ok(scroll <= client, `no horizontal scrolling (${scroll} > ${client})`);
  assert.equal(unlabelled, 0, 'every visible input has a label');
}

async function logInAndGrant(page: Page, user: string, password: string) {
  await page.getByLabel('Account name').fill(user);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Log in' }).click()]);
  await page.getByRole('button', { name: 'Grant access' }).waitFor();
  assert.match((await page.textContent('body'))!, new RegExp(`account ${user}`));
}

for (const dialect of dialects()) {
  describe(`login flows in Chromium [${dialect}]`, { skip }, () => {
    let p: Parley;
    let context: BrowserContext;
    let page: Page;
    let browser: Browser;

    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      await createUser(p, 'alice', { displayName: 'Alice Liddell' });
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      browser = await launchChromium(PHONE);
      ({ context, page } = browser);
    });
    after(async () => {
      await browser?.close();
      await p?.close();
    });

    it('v2: the app inits, the browser logs in and grants, the app polls and uses the app password', async () => {
      const init = await fetch(`${p.url}/index.php/login/v2`, { method: 'POST', headers: { 'User-Agent': 'Mozilla/5.0 (Android) Nextcloud-Talk v22.0.0' } });
      const flow = await init.json();
      const pollOnce = () =>
        fetch(flow.poll.endpoint, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${flow.poll.token}` });
      assert.equal((await pollOnce()).status, 404);

      await page.goto(flow.login);
      assert.match(page.url(), /\/index\.php\/login\/v2\/grant$/, 'the token left the address bar');
      assert.match((await page.textContent('body'))!, /Nextcloud-Talk v22\.0\.0/);
      await assertPhoneFriendly(page);
      await page.screenshot({ path: path.join(ARTIFACTS, `login-flow-v2-login-${dialect}.png`), fullPage: true });

      // A wrong password first: the same page again, with the message, still no grant.
      await page.getByLabel('Account name').fill('alice');
      await page.getByLabel('Password').fill('wrong-password');
      const [wrong] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Log in' }).click()]);
      assert.equal(wrong!.status(), 401);
      assert.equal(await page.getByRole('alert').textContent(), 'Wrong login or password.');

      await logInAndGrant(page, 'alice', passwordOf('alice'));
      await assertPhoneFriendly(page);
      assert.equal((await pollOnce()).status, 404, 'not before the grant');
      await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Grant access' }).click()]);
      const body = (await page.textContent('body'))!;
      assert.match(body, /Account connected/);
      await page.screenshot({ path: path.join(ARTIFACTS, `login-flow-v2-done-${dialect}.png`), fullPage: true });

      const r = await pollOnce();
      assert.equal(r.status, 200);
      const creds = await r.json();
      assert.equal(creds.loginName, 'alice');
      assert.equal(creds.server, p.url);
      assert.ok(!body.includes(creds.appPassword), 'the page never shows the app password');
      assert.equal((await pollOnce()).status, 404, 'handed out once');

      const me = await call(p, 'GET', '/cloud/user', { as: { authorization: basic(creds.loginName, creds.appPassword) } });
      assert.equal(me.status, 200);
      assert.equal(me.data.displayname, 'Alice Liddell');
      const caps = await call(p, 'GET', '/cloud/capabilities', { as: { authorization: basic(creds.loginName, creds.appPassword) } });
      assert.ok(caps.data.capabilities.spreed.features.length > 0);
    });

    it('v1: the webview logs in and grants; the nc:// redirect carries a working app password', async () => {
      await context.clearCookies();
      const webview = await context.newPage();
      webview.setDefaultTimeout(TIMEOUT);
      await webview.setExtraHTTPHeaders({ 'OCS-APIRequest': 'true' });
      await webview.goto(`${p.url}/index.php/login/flow`);
      assert.match(webview.url(), /\/index\.php\/login\/flow\/grant$/);
      await assertPhoneFriendly(webview);
      await logInAndGrant(webview, 'alice', passwordOf('alice'));
      // The app intercepts the nc:// redirect; here it is read off the grant response.
      const grantResponse = webview.waitForResponse((res) => res.url().endsWith('/index.php/login/flow/grant') && res.request().method() === 'POST');
      await webview.getByRole('button', { name: 'Grant access' }).click();
      const res = await grantResponse;
      assert.equal(res.status(), 303);
      const m = /^nc:\/\/login\/server:(.+)&user:(.+)&password:(.+)$/.exec(res.headers()['location'] ?? '');
      assert.ok(m, res.headers()['location']);
      assert.equal(m[1], p.url);
      const user = decodeURIComponent(m[2]);
      const password = decodeURIComponent(m[3]);
      assert.equal(user, 'alice');
      assert.match(password, /^[A-Za-z0-9]{72}$/);
      const rooms = await call(p, 'GET', '/apps/spreed/api/v4/room', { as: { authorization: basic(user, password) } });
      assert.equal(rooms.status, 200);
      assert.ok(Array.isArray(rooms.data));
      await webview.close();
    });
  });
}
