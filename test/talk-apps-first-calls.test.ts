/**
 * What Talk Android and Talk Desktop request right after logging in (docs/reference/accounts-and-login.md#what-the-apps-call-first),
 * in order, with an app password from Login Flow v2: each answers as Nextcloud does, or — where
 * Parley does not offer the feature (push registration; endpoints of areas not built here) —
 * as a Nextcloud without it: an OCS answer in the requested format, never a 500 or HTML.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { basic, call, createUser, dialects, passwordOf, startParley, type Caller, type Parley } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';

const ANDROID_UA = 'Mozilla/5.0 (Android) Nextcloud-Talk v22.0.0';

/** Login Flow v2 without a browser: init, log in and grant through the pages, poll. */
async function appPasswordViaFlow(p: Parley, user: string): Promise<Caller> {
  const init = await (await fetch(`${p.url}/index.php/login/v2`, { method: 'POST', headers: { 'User-Agent': ANDROID_UA } })).json();
  const opened = await fetch(init.login, { redirect: 'manual' });
  const cookie = opened.headers.get('set-cookie')!.split(';')[0];
  const state = /name="stateToken" value="([A-Za-z0-9]+)"/.exec(
    await (await fetch(`${p.url}/index.php/login/v2/grant`, { headers: { Cookie: cookie } })).text(),
  )![1];
  const form = (extra: Record<string, string>) => ({
    method: 'POST',
    redirect: 'manual' as const,
    headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ stateToken: state, ...extra }).toString(),
  });
  assert.equal((await fetch(`${p.url}/index.php/login/v2/login`, form({ user, password: passwordOf(user) }))).status, 303);
  assert.equal((await fetch(`${p.url}/index.php/login/v2/grant`, form({}))).status, 200);
  const creds = await (
    await fetch(init.poll.endpoint, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${init.poll.token}` })
  ).json();
  return { authorization: basic(creds.loginName, creds.appPassword), headers: { 'User-Agent': ANDROID_UA, Accept: 'application/json' } };
}

for (const dialect of dialects()) {
  describe(`Talk apps' first requests after login [${dialect}]`, () => {
    let p: Parley;
    let app: Caller;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      await createUser(p, 'alice', { displayName: 'Alice Archer' });
      app = await appPasswordViaFlow(p, 'alice');
    });
    after(async () => p?.close());

    const json = (r: { headers: Headers; status: number }, label: string) => {
      assert.ok(r.status < 500, `${label}: ${r.status}`);
      assert.match(r.headers.get('content-type') ?? '', /application\/json/, label);
    };

    it('Desktop, before login: anonymous capabilities name a recent server and Talk', async () => {
      const r = await call(p, 'GET', '/cloud/capabilities');
      json(r, 'capabilities');
      assert.ok(r.data.version.major >= 26, 'Talk Desktop refuses Nextcloud < 26');
      assert.ok(r.data.capabilities.spreed, 'Talk Desktop refuses a server without spreed');
    });

    it('Android (1): status.php says installed, not in maintenance', async () => {
      const r = await fetch(`${p.url}/status.php`);
      const s = await r.json();
      assert.equal(s.installed, true);
      assert.equal(s.maintenance, false);
    });

    it('(2)+(4) capabilities with the app password: spreed features non-empty, notifications entry', async () => {
      const r = await call(p, 'GET', '/cloud/capabilities', { as: app });
      json(r, 'capabilities');
      assert.ok(r.data.capabilities.spreed.features.length > 0, 'else the app says "Talk not installed"');
      assert.ok(r.data.capabilities.notifications['ocs-endpoints'].includes('list'));
    });

    it('(3) cloud/user: id and display name', async () => {
      const r = await call(p, 'GET', '/cloud/user', { as: app });
      json(r, 'user');
      assert.equal(r.data.id, 'alice');
      assert.equal(r.data.displayname, 'Alice Archer');
    });

    it('(5) push registration and removal: OCS answers in JSON (a malformed key 400 INVALID_DEVICE_KEY, nothing to remove 200)', async () => {
      const expected: Record<string, number> = { POST: 400, DELETE: 200 };
      for (const method of ['POST', 'DELETE']) {
        const r = await call(p, method, '/apps/notifications/api/v2/push', {
          as: app,
          format: 'none',
          form: { pushTokenHash: 'a'.repeat(128), devicePublicKey: '-----BEGIN PUBLIC KEY-----', proxyServer: 'https://push-notifications.nextcloud.com/' },
        });
        json(r, `push ${method}`);
        assert.equal(r.status, expected[method], method);
        if (method === 'POST') assert.equal(r.data.message, 'INVALID_DEVICE_KEY');
      }
    });

    it('(6) signaling settings: an OCS answer in JSON, never a 500 or HTML', async () => {
      const r = await call(p, 'GET', '/apps/spreed/api/v3/signaling/settings', { as: app, query: { token: '' } });
      json(r, 'signaling settings');
      assert.ok(r.body.ocs.meta, 'OCS envelope');
    });

    it('(7) the conversation list, user status, notifications and the own avatar', async () => {
      const rooms = await call(p, 'GET', '/apps/spreed/api/v4/room', { as: app });
      json(rooms, 'rooms');
      assert.equal(rooms.status, 200);
      assert.ok(Array.isArray(rooms.data));
      const status = await call(p, 'GET', '/apps/user_status/api/v1/user_status', { as: app });
      json(status, 'user status');
      assert.ok([200, 404].includes(status.status));
      const notes = await call(p, 'GET', '/apps/notifications/api/v2/notifications', { as: app });
      json(notes, 'notifications');
      assert.equal(notes.status, 200);
      assert.deepEqual(notes.data, []);
      const avatar = await fetch(`${p.url}/index.php/avatar/alice/512`);
      assert.equal(avatar.status, 200);
      // The generated avatar (initials "AA" drawn with the bundled font) is a PNG, as Nextcloud's.
      assert.equal(avatar.headers.get('content-type'), 'image/png');
      assert.deepEqual([...new Uint8Array(await avatar.arrayBuffer()).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
    });

    it('account removal: the app password is revoked and stops working', async () => {
      const r = await call(p, 'DELETE', '/core/apppassword', { as: app });
      assert.equal(r.status, 200);
      assert.equal((await call(p, 'GET', '/cloud/user', { as: app })).status, 401);
    });
  });
}
