/**
 * Push device registration (docs/talk-apps.md "Push notifications"), as the notifications
 * app's PushController answers it: 201 new or changed, 200 unchanged, 400 with its message for
 * bad input or a login password, 202/200 on removal; the answer's device identifier and
 * signature as the proxy checks them; a registration dies with its app password.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, verify } from 'node:crypto';
import { useParley } from './helpers/fixtures.js';
import { admin, dialects, passwordOf } from './helpers/parley.js';
import { newDevice, startProxy } from './helpers/push-proxy.js';
import { freePort } from './helpers/processes.js';
import { checkPushProxies } from '../src/services/push/reachability.js';

const PUSH = '/apps/notifications/api/v2/push';
const TALK_UA = 'Mozilla/5.0 (Android) Nextcloud-Talk v20.0.0';

const proxy = await startProxy();
after(() => proxy.close());

for (const dialect of dialects()) {
  describe(`push registration [${dialect}]`, () => {
    const t = useParley(dialect, {
      users: ['alice', 'bob', 'carol', 'dave'],
      env: { PUSH_ALLOW_INSECURE: 'true', PUSH_PROXIES: `${proxy.url}/,https://push.example.org` },
    });
    let alice: { user: string; password: string };
    let aliceApId: number;

    /** A new app password of `user` (as Login Flow hands one out). */
    async function appPassword(user: string): Promise<{ user: string; password: string }> {
      const r = await t.call('GET', '/core/getapppassword', { as: { user, password: passwordOf(user) }, headers: { 'User-Agent': TALK_UA } });
      assert.equal(r.status, 200, r.text);
      return { user, password: r.data.apppassword };
    }

    before(async () => {
      alice = await appPassword('alice');
      const row = await t.services.db.kysely.selectFrom('app_passwords').select('id').where('user_id', '=', 'alice').executeTakeFirstOrThrow();
      aliceApId = Number(row.id);
    });

    it('registers (201), repeats unchanged (200), changes (201); the answer is what the proxy verifies', async () => {
      const device = newDevice();
      const body = { pushTokenHash: device.pushTokenHash, devicePublicKey: device.publicKeyPem, proxyServer: `${proxy.url}/` };
      const first = await t.call('POST', PUSH, { as: alice, body, headers: { 'User-Agent': TALK_UA } });
      assert.equal(first.status, 201, first.text);
      const { publicKey, deviceIdentifier, signature } = first.data;
      assert.match(publicKey, /^-----BEGIN PUBLIC KEY-----\n/);
      assert.doesNotMatch(first.text, /PRIVATE/);
      // The identity the notifications app signs: PHP's JSON of [cloud id, token id].
      const host = new URL(t.services.settings.baseUrl).host;
      const identity = `["alice@${host}",${aliceApId}]`;
      assert.equal(deviceIdentifier, createHash('sha512').update(identity).digest('base64'));
      assert.ok(verify('sha512', Buffer.from(identity), publicKey, Buffer.from(signature, 'base64')), 'signature verifies with the account key');

      const again = await t.call('POST', PUSH, { as: alice, body, headers: { 'User-Agent': TALK_UA } });
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.data, first.data);

      const moved = await t.call('POST', PUSH, { as: alice, body: { ...body, proxyServer: 'https://push.example.org' }, headers: { 'User-Agent': TALK_UA } });
      assert.equal(moved.status, 201, moved.text);
      assert.equal(moved.data.publicKey, publicKey, 'one key pair per account');
      const rows = await t.services.repos.pushDevices.forUser('alice');
      assert.equal(rows.length, 1);
      assert.equal(rows[0].proxy_server, 'https://push.example.org');
      assert.equal(rows[0].app_type, 'talk');
    });

    it('400 with the notifications app messages; nothing stored', async () => {
      const device = newDevice();
      const good = { pushTokenHash: device.pushTokenHash, devicePublicKey: device.publicKeyPem, proxyServer: proxy.url };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...good, pushTokenHash: 'abc' }, 'INVALID_PUSHTOKEN_HASH'],
        [{ ...good, pushTokenHash: device.pushTokenHash.toUpperCase() }, 'INVALID_PUSHTOKEN_HASH'],
        [{ ...good, devicePublicKey: 'not a key' }, 'INVALID_DEVICE_KEY'],
        [{ ...good, devicePublicKey: device.publicKeyPem.replace('MII', 'XII') }, 'INVALID_DEVICE_KEY'],
        [{ ...good, proxyServer: 'http://push.example.org' }, 'INVALID_PROXY_SERVER'],
        [{ ...good, proxyServer: 'https://elsewhere.example.org' }, 'INVALID_PROXY_SERVER'],
        [{ ...good, proxyServer: 'not a url' }, 'INVALID_PROXY_SERVER'],
      ];
      const bob = await appPassword('bob');
      for (const [body, message] of cases) {
        const r = await t.call('POST', PUSH, { as: bob, body });
        assert.equal(r.status, 400, `${message}: ${r.text}`);
        assert.equal(r.data.message, message);
      }
      for (const missing of ['pushTokenHash', 'devicePublicKey', 'proxyServer']) {
        const body: Record<string, unknown> = { ...good };
        delete body[missing];
        const r = await t.call('POST', PUSH, { as: bob, body });
        assert.equal(r.status, 400, r.text);
      }
      const wrongType = await t.call('POST', PUSH, { as: bob, body: { ...good, pushTokenHash: 12 } });
      assert.equal(wrongType.status, 400);
      // A login password is no session token (PushController: INVALID_SESSION_TOKEN).
      const login = await t.call('POST', PUSH, { as: { user: 'bob', password: passwordOf('bob') }, body: good });
      assert.equal(login.status, 400);
      assert.equal(login.data.message, 'INVALID_SESSION_TOKEN');
      const loginDelete = await t.call('DELETE', PUSH, { as: { user: 'bob', password: passwordOf('bob') } });
      assert.equal(loginDelete.status, 400);
      assert.equal(loginDelete.data.message, 'INVALID_SESSION_TOKEN');
      assert.equal((await t.services.repos.pushDevices.forUser('bob')).length, 0);
      assert.equal((await t.call('POST', PUSH, { body: good })).status, 401);
    });

    it('DELETE unregisters (202), then there is nothing (200)', async () => {
      const carol = await appPassword('carol');
      const device = newDevice();
      const reg = await t.call('POST', PUSH, {
        as: carol,
        body: { pushTokenHash: device.pushTokenHash, devicePublicKey: device.publicKeyPem, proxyServer: proxy.url },
      });
      assert.equal(reg.status, 201);
      assert.equal((await t.call('DELETE', PUSH, { as: carol })).status, 202);
      assert.equal((await t.services.repos.pushDevices.forUser('carol')).length, 0);
      assert.equal((await t.call('DELETE', PUSH, { as: carol })).status, 200);
    });

    it('a registration dies with its app password; a new app password of the same phone replaces the old one', async () => {
      const dave = await appPassword('dave');
      const device = newDevice();
      const body = { pushTokenHash: device.pushTokenHash, devicePublicKey: device.publicKeyPem, proxyServer: proxy.url };
      assert.equal((await t.call('POST', PUSH, { as: dave, body })).status, 201);
      const second = await appPassword('dave');
      assert.equal((await t.call('POST', PUSH, { as: second, body })).status, 201);
      assert.equal((await t.services.repos.pushDevices.forUser('dave')).length, 1, 'the same push token under a new app password replaces the old row');
      assert.equal((await t.call('DELETE', '/core/apppassword', { as: second })).status, 200);
      assert.equal((await t.services.repos.pushDevices.forUser('dave')).length, 0);
    });

    it('a deleted account takes its registrations and key pair along', async () => {
      await t.newUser('frank');
      const frank = await appPassword('frank');
      const device = newDevice();
      const body = { pushTokenHash: device.pushTokenHash, devicePublicKey: device.publicKeyPem, proxyServer: proxy.url };
      assert.equal((await t.call('POST', PUSH, { as: frank, body })).status, 201);
      assert.equal((await t.call('DELETE', '/cloud/users/frank', { as: admin })).status, 200);
      assert.equal((await t.services.repos.pushDevices.forUser('frank')).length, 0);
      assert.equal((await t.services.repos.pushDevices.keys(['frank'])).length, 0);
    });
  });
}

// The check an operator's health command calls (PushServices.checkProxies).
describe('push proxy reachability', () => {
  it('a listening proxy is reachable, a closed port is not', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const [up, down] = await checkPushProxies([proxy.url, closed], 2000);
    assert.equal(up.reachable, true);
    assert.equal(up.status, 404);
    assert.equal(down.reachable, false);
    assert.equal(down.error, 'ECONNREFUSED');
  });
});
