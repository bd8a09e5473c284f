/**
 * Web Push (docs/talk-apps.md "Push notifications"), as the notifications app's
 * WebPushController: the VAPID key, registration (201, 200 when only the app types change),
 * activation with the token pushed through the subscription, removal; a mention arrives as an
 * aes128gcm message (decrypted here per RFC 8291) signed with VAPID; an expired subscription is
 * removed; with Web Push off the registration answers 403 and the capability is absent.
 */
import os from 'node:os';
import { lookup } from 'node:dns/promises';
import { isWebPushEndpoint } from '../src/domain/web-push.js';
import { resolvesInternally } from '../src/services/platform/internal-address.js';
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useParley } from './helpers/fixtures.js';
import { dialects, passwordOf, type Caller } from './helpers/parley.js';
import { eventually } from './helpers/eventually.js';
import { decryptAes128gcm, newBrowser, startPushService, type Browser } from './helpers/web-push-endpoint.js';

const WEBPUSH = '/apps/notifications/api/v2/webpush';

const service = await startPushService();
after(() => service.close());

for (const dialect of dialects()) {
  describe(`web push [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob', 'carol'], env: { WEB_PUSH: 'true', PUSH_ALLOW_INSECURE: 'true' } });

    async function appPassword(user: string): Promise<Caller> {
      const r = await t.call('GET', '/core/getapppassword', { as: { user, password: passwordOf(user) } });
      return { user, password: r.data.apppassword };
    }

    /** Messages to `path` received after `from`, decrypted for `browser`. */
    async function received(path: string, from: number, browser: Browser, count = 1): Promise<Array<Record<string, any>>> {
      await eventually(`a web push to ${path}`, async () => service.messages.slice(from).filter((m) => m.path === path).length >= count);
      return service.messages
        .slice(from)
        .filter((m) => m.path === path)
        .map((m) => {
          assert.equal(m.headers['content-encoding'], 'aes128gcm');
          return JSON.parse(decryptAes128gcm(browser, m.body));
        });
    }

    /** A subscribed, activated browser of `user`. */
    async function subscribe(user: string, path: string): Promise<{ caller: Caller; browser: Browser }> {
      const caller = await appPassword(user);
      const browser = newBrowser();
      const from = service.messages.length;
      const r = await t.call('POST', WEBPUSH, {
        as: caller,
        body: { endpoint: `${service.url}${path}`, uaPublicKey: browser.p256dh, auth: browser.auth, appTypes: 'all' },
      });
      assert.equal(r.status, 201, r.text);
      const [activation] = await received(path, from, browser);
      assert.match(activation.activationToken, /^[0-9a-f-]{36}$/);
      const a = await t.call('POST', `${WEBPUSH}/activate`, { as: caller, body: { activationToken: activation.activationToken } });
      assert.equal(a.status, 202, a.text);
      return { caller, browser };
    }

    it('registers, activates with the pushed token, and receives a mention as an aes128gcm message', async () => {
      const vapid = await t.call('GET', `${WEBPUSH}/vapid`, { as: { user: 'alice', password: passwordOf('alice') } });
      assert.equal(vapid.status, 200);
      assert.equal(Buffer.from(vapid.data.vapid, 'base64url').length, 65);

      const caller = await appPassword('alice');
      const browser = newBrowser();
      const body = { endpoint: `${service.url}/alice`, uaPublicKey: browser.p256dh, auth: browser.auth, appTypes: 'all' };
      const from = service.messages.length;
      assert.equal((await t.call('POST', WEBPUSH, { as: caller, body })).status, 201);
      const [activation] = await received('/alice', from, browser);
      const wrong = await t.call('POST', `${WEBPUSH}/activate`, { as: caller, body: { activationToken: 'not-the-token' } });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.data.message, 'INVALID_ACTIVATION_TOKEN');
      assert.equal((await t.call('POST', `${WEBPUSH}/activate`, { as: caller, body: { activationToken: activation.activationToken } })).status, 202);
      assert.equal((await t.call('POST', `${WEBPUSH}/activate`, { as: caller, body: { activationToken: activation.activationToken } })).status, 200);
      assert.equal((await t.call('POST', WEBPUSH, { as: caller, body: { ...body, appTypes: 'all,-files' } })).status, 200, 'only the app types change');

      const room = await t.newRoom('bob', { name: 'Browsers', members: ['alice'] });
      const from2 = service.messages.length;
      const id = await t.say(room, 'bob', 'hi @alice');
      const [push] = await received('/alice', from2, browser);
      assert.deepEqual(push, { nid: push.nid, app: 'spreed', subject: 'bob mentioned you in conversation Browsers', type: 'chat', id: `${room.token}/${id}` });
      const message = service.messages.slice(from2).find((m) => m.path === '/alice')!;
      assert.equal(message.headers.urgency, 'high');
      assert.equal(message.headers.topic, `nid${push.nid}`);
      assert.match(String(message.headers.authorization), new RegExp(`^vapid t=[^,]+, k=${vapid.data.vapid}$`));

      // Dismissing it sends the silent delete.
      const from3 = service.messages.length;
      assert.equal((await t.call('DELETE', `/apps/notifications/api/v2/notifications/${push.nid}`, { as: caller })).status, 200);
      const [deleted] = await received('/alice', from3, browser);
      assert.deepEqual(deleted, { nid: push.nid, delete: true });

      assert.equal((await t.call('DELETE', WEBPUSH, { as: caller })).status, 202);
      assert.equal((await t.call('DELETE', WEBPUSH, { as: caller })).status, 200);
    });

    it('bad input answers 400 with the notifications app messages; a login password INVALID_SESSION_TOKEN', async () => {
      const caller = await appPassword('carol');
      const browser = newBrowser();
      const good = { endpoint: `${service.url}/carol`, uaPublicKey: browser.p256dh, auth: browser.auth, appTypes: 'all' };
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ...good, uaPublicKey: 'abc' }, 'INVALID_P256DH'],
        [{ ...good, auth: Buffer.alloc(8).toString('base64url') }, 'INVALID_AUTH'],
        [{ ...good, endpoint: 'http://push.example.org/x' }, 'INVALID_ENDPOINT'],
        [{ ...good, endpoint: 'https://10.0.0.1/x' }, 'INVALID_ENDPOINT'],
        [{ ...good, appTypes: 'a'.repeat(257) }, 'TOO_MANY_APP_TYPES'],
      ];
      for (const [body, message] of cases) {
        const r = await t.call('POST', WEBPUSH, { as: caller, body });
        assert.equal(r.status, 400, message);
        assert.equal(r.data.message, message);
      }
      const login = await t.call('POST', WEBPUSH, { as: { user: 'carol', password: passwordOf('carol') }, body: good });
      assert.equal(login.status, 400);
      assert.equal(login.data.message, 'INVALID_SESSION_TOKEN');
      const none = await t.call('POST', `${WEBPUSH}/activate`, { as: caller, body: { activationToken: 'x' } });
      assert.equal(none.status, 404);
      assert.equal(none.data.message, 'NO_PUSH_SUBSCRIPTION');
    });

    it('an expired subscription (410) is removed', async () => {
      await subscribe('bob', '/bob');
      const subscriptions = async () =>
        (await t.services.db.kysely.selectFrom('webpush_subscriptions').select('id').where('user_id', '=', 'bob').execute()).length;
      assert.equal(await subscriptions(), 1);
      const room = await t.newRoom('carol', { name: 'Expired', members: ['bob'] });
      service.status = 410;
      try {
        await t.say(room, 'carol', '@bob hello?');
        await eventually('the subscription is removed', async () => (await subscriptions()) === 0);
      } finally {
        service.status = 201;
      }
    });

    it('the capability names webpush', async () => {
      const caps = await t.call('GET', '/cloud/capabilities', { as: { user: 'alice', password: passwordOf('alice') } });
      assert.deepEqual(caps.data.capabilities.notifications.push, ['devices', 'object-data', 'delete', 'webpush']);
    });
  });

  describe(`web push off [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice'] });
    it('registration answers 403 WEBPUSH_DISABLED and the capability is absent', async () => {
      const ap = await t.call('GET', '/core/getapppassword', { as: { user: 'alice', password: passwordOf('alice') } });
      const browser = newBrowser();
      const r = await t.call('POST', WEBPUSH, {
        as: { user: 'alice', password: ap.data.apppassword },
        body: { endpoint: 'https://push.example.org/x', uaPublicKey: browser.p256dh, auth: browser.auth, appTypes: 'all' },
      });
      assert.equal(r.status, 403);
      assert.equal(r.data.message, 'WEBPUSH_DISABLED');
      const caps = await t.call('GET', '/cloud/capabilities', { as: { user: 'alice', password: passwordOf('alice') } });
      assert.ok(!caps.data.capabilities.notifications.push.includes('webpush'));
    });
  });
}

describe('web push: an endpoint whose name resolves into the own network is not posted to', () => {
  it('a name that resolves to loopback counts as internal; a public address literal does not', async (t) => {
    const name = os.hostname();
    const resolved = await lookup(name, { all: true }).catch(() => []);
    if (!resolved.some((a) => a.address.startsWith('127.') || a.address === '::1')) {
      t.skip(`this machine's name (${name}) does not resolve to loopback here`);
      return;
    }
    assert.equal(isWebPushEndpoint(`https://${name}/push/1`, false), true, 'the name passes the check as written');
    assert.equal(await resolvesInternally(name), true, 'but what it resolves to is internal');
    assert.equal(await resolvesInternally('192.0.2.10'), false);
    assert.equal(await resolvesInternally('10.1.2.3'), true);
  });
});
