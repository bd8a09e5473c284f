/**
 * Provisioning API for app config (docs/api.md "App configuration and capabilities"): admin only,
 * Nextcloud's `data`-wrapped shapes, registry validation (wrong type → 400 and nothing stored),
 * secrets masked.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SENSITIVE_MASK } from '../src/app-config/registry.js';
import { admin, as, createUser, dialects } from './helpers/parley.js';
import { assertAdminOnly, useParley } from './helpers/fixtures.js';

const BASE = '/apps/provisioning_api/api/v1/config/apps';

for (const dialect of dialects()) {
  describe(`app config API [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice'] });
    before(async () => {
      await createUser(t.p, 'staff', { groups: ['staff'] });
    });

    const get = (key: string) => t.call('GET', `${BASE}/spreed/${key}`, { as: admin });
    const set = (key: string, value: unknown) => t.call('POST', `${BASE}/spreed/${key}`, { as: admin, body: { value } });
    const stored = async () => (await t.call('GET', `${BASE}/spreed`, { as: admin })).data.data as string[];

    it('lists the apps: {data: ["spreed"]}', async () => {
      const r = await t.call('GET', BASE, { as: admin });
      assert.equal(r.status, 200);
      assert.deepEqual(r.data, { data: ['spreed'] });
    });

    it('is admin only: 401 anonymous, 403 for a user, on every route', async () => {
      await assertAdminOnly(t, 'alice', [
        ['GET', BASE],
        ['GET', `${BASE}/spreed`],
        ['GET', `${BASE}/spreed/start_calls`],
        ['POST', `${BASE}/spreed/start_calls`, { value: '3' }],
        ['DELETE', `${BASE}/spreed/start_calls`, { value: '3' }],
      ]);
      assert.equal((await get('start_calls')).data.data, '0', 'nothing was stored by the refused POST');
    });

    it('an unknown app id is 403 {error:"app"}, as Nextcloud answers "Invalid app id given"', async () => {
      for (const [method, path] of [
        ['GET', `${BASE}/files`],
        ['GET', `${BASE}/files/start_calls`],
        ['POST', `${BASE}/files/start_calls`],
        ['DELETE', `${BASE}/files/start_calls`],
        ['GET', `${BASE}/${'x'.repeat(90)}`],
      ] as const) {
        const r = await t.call(method, path, { as: admin, body: method === 'GET' ? undefined : { value: '3' } });
        assert.equal(r.status, 403, `${method} ${path}`);
        assert.equal(r.data.error, 'app');
      }
      assert.equal((await get('start_calls')).data.data, '0');
    });

    it('reads the registry default for an unset key, or the given defaultValue', async () => {
      assert.deepEqual((await get('max_gif_size')).data, { data: '3145728' });
      assert.deepEqual((await get('default_attachment_folder')).data, { data: '/Talk' });
      const r = await t.call('GET', `${BASE}/spreed/sip_bridge_dialout_number`, { as: admin, query: { defaultValue: '+4930' } });
      assert.deepEqual(r.data, { data: '+4930' });
      assert.ok(!(await stored()).includes('max_gif_size'), 'reading stores nothing');
    });

    it('sets, reads back, lists and deletes a typed value', async () => {
      const r = await set('max_gif_size', '1024');
      assert.equal(r.status, 200);
      assert.deepEqual(r.data, []);
      assert.deepEqual((await get('max_gif_size')).data, { data: '1024' });
      assert.ok((await stored()).includes('max_gif_size'));
      const caps = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      assert.equal(caps.data.capabilities.spreed.config.previews['max-gif-size'], 1024);

      const d = await t.call('DELETE', `${BASE}/spreed/max_gif_size`, { as: admin });
      assert.equal(d.status, 200);
      assert.deepEqual(d.data, []);
      assert.ok(!(await stored()).includes('max_gif_size'));
      assert.deepEqual((await get('max_gif_size')).data, { data: '3145728' });
    });

    it('lists stored keys sorted', async () => {
      await set('start_calls', 1);
      await set('chat_style', 'unified');
      const keys = await stored();
      assert.deepEqual(keys, [...keys].sort());
      assert.ok(keys.includes('start_calls') && keys.includes('chat_style'));
      await t.call('DELETE', `${BASE}/spreed/start_calls`, { as: admin });
      await t.call('DELETE', `${BASE}/spreed/chat_style`, { as: admin });
    });

    it('stores values in the contract storage form (strings; yes/no or 1/0; JSON)', async () => {
      await set('start_calls', 2); // a JSON number
      assert.equal((await get('start_calls')).data.data, '2');
      await set('breakout_rooms', 'false');
      assert.equal((await get('breakout_rooms')).data.data, 'no');
      await set('force_passwords', true);
      assert.equal((await get('force_passwords')).data.data, '1');
      await set('stun_servers', ['stun.example.org:3478']); // a JSON list
      assert.equal((await get('stun_servers')).data.data, '["stun.example.org:3478"]');
      await set('allowed_groups', '["staff"]');
      assert.equal((await get('allowed_groups')).data.data, '["staff"]');
      for (const k of ['start_calls', 'breakout_rooms', 'force_passwords', 'stun_servers', 'allowed_groups']) {
        await t.call('DELETE', `${BASE}/spreed/${k}`, { as: admin });
      }
    });

    it('accepts the form encoding Nextcloud clients send, and the real key name max-gif-size', async () => {
      const r = await t.call('POST', `${BASE}/spreed/max-gif-size`, { as: admin, form: { value: '2048' } });
      assert.equal(r.status, 200);
      assert.equal((await get('max_gif_size')).data.data, '2048');
      assert.equal((await get('max-gif-size')).data.data, '2048');
      await t.call('DELETE', `${BASE}/spreed/max-gif-size`, { as: admin });
      assert.equal((await get('max_gif_size')).data.data, '3145728');
    });

    it('refuses a value of the wrong type with 400 {error:"value"} and stores nothing', async () => {
      await set('start_calls', '1');
      const cases: Array<[string, unknown]> = [
        ['start_calls', 'abc'],
        ['start_calls', '7'],
        ['start_calls', '1.5'],
        ['start_calls', ['1']],
        ['breakout_rooms', 'maybe'],
        ['signaling_mode', 'carrier-pigeon'],
        ['stun_servers', 'not json'],
        ['stun_servers', '["no-port"]'],
        ['turn_servers', '{"server":"x"}'],
        ['signaling_servers', '{"servers":[{"server":"ftp://x"}]}'],
        ['allowed_groups', 'staff'],
        ['allowed_groups', '["no-such-group"]'],
        ['sip_bridge_dialout_number', 'x'.repeat(33)],
        ['token_entropy', '4'],
      ];
      for (const [key, value] of cases) {
        const before = (await get(key)).data.data;
        const r = await set(key, value);
        assert.equal(r.status, 400, `${key}=${JSON.stringify(value)}`);
        assert.equal(r.data.error, 'value', `${key}=${JSON.stringify(value)}`);
        assert.equal(typeof r.data.message, 'string');
        assert.equal((await get(key)).data.data, before, `${key} unchanged`);
      }
      assert.equal((await get('start_calls')).data.data, '1');
      await t.call('DELETE', `${BASE}/spreed/start_calls`, { as: admin });
    });

    it('a POST without value is 400 {error:"value"}', async () => {
      const r = await t.call('POST', `${BASE}/spreed/start_calls`, { as: admin, body: {} });
      assert.equal(r.status, 400);
      assert.equal(r.data.error, 'value');
      assert.ok(!(await stored()).includes('start_calls'));
    });

    it('an unknown key is 400 {error:"key"} on read, write and delete', async () => {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const r = await t.call(method, `${BASE}/spreed/no_such_key`, { as: admin, body: method === 'GET' ? undefined : { value: '1' } });
        assert.equal(r.status, 400, method);
        assert.equal(r.data.error, 'key', method);
      }
      const long = await t.call('GET', `${BASE}/spreed/${'k'.repeat(300)}`, { as: admin });
      assert.equal(long.status, 400);
      assert.equal(long.data.error, 'key');
      // Past the router's path-segment limit the framework answers 414, still with a reason.
      const huge = await t.call('POST', `${BASE}/spreed/${'k'.repeat(1200)}`, { as: admin, body: { value: '1' } });
      assert.equal(huge.status, 414);
      assert.equal(huge.data.error, 'request');
      assert.ok(!(await stored()).includes('no_such_key'));
    });

    it('never returns a secret: plain secrets and secrets inside server lists are masked', async () => {
      await set('sip_bridge_shared_secret', 'top-secret-value');
      const plain = await get('sip_bridge_shared_secret');
      assert.equal(plain.data.data, SENSITIVE_MASK);
      assert.ok(!plain.text.includes('top-secret-value'));

      await set('signaling_servers', { servers: [{ server: 'https://hpb.example.org', verify: true }], secret: 'hpb-secret-value' });
      const list = await get('signaling_servers');
      assert.ok(!list.text.includes('hpb-secret-value'));
      assert.deepEqual(JSON.parse(list.data.data), { servers: [{ server: 'https://hpb.example.org', verify: true }], secret: SENSITIVE_MASK });
      const xml = await t.call('GET', `${BASE}/spreed/sip_bridge_shared_secret`, { as: admin, format: 'xml' });
      assert.ok(!xml.text.includes('top-secret-value'));
      await t.call('DELETE', `${BASE}/spreed/sip_bridge_shared_secret`, { as: admin });
      await t.call('DELETE', `${BASE}/spreed/signaling_servers`, { as: admin });
    });

    it('answers in the v1 envelope and in XML too', async () => {
      const v1 = await t.call('GET', `${BASE}/spreed/start_calls`, { as: admin, version: 1 });
      assert.equal(v1.status, 200);
      assert.equal(v1.meta.statuscode, 100);
      assert.deepEqual(v1.data, { data: '0' });
      const v1bad = await t.call('POST', `${BASE}/spreed/start_calls`, { as: admin, version: 1, body: { value: 'x' } });
      assert.equal(v1bad.status, 200, 'v1 failures keep HTTP 200');
      assert.equal(v1bad.meta.statuscode, 400);
      const xml = await t.call('GET', BASE, { as: admin, format: 'xml' });
      assert.match(xml.text, /<data>\n  <data>\n   <element>spreed<\/element>\n  <\/data>\n <\/data>/);
    });
  });
}
