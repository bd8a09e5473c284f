/**
 * Request logs (docs/operators.md "Logs"): one JSON line per request with request id, user, route,
 * status and duration; a run that uses every secret-bearing endpoint leaves no secret in the log.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { ADMIN, admin, basic, dialects } from './helpers/parley.js';
import { RoomType, useParley } from './helpers/fixtures.js';

/** Strings that must never appear in the log, and their base64 forms in Basic headers. */
const SECRETS = [
  ADMIN.password,
  'New-user-Passw0rd!x',
  'Changed-Passw0rd!y',
  'sip-secret-for-log-test',
  'turn-secret-for-log-test',
  'hpb-secret-for-log-test',
  'room-password-for-log-test',
  'query-password-for-log-test',
  'wrong-password-for-log-test',
];

for (const dialect of dialects()) {
  describe(`request logs [${dialect}]`, () => {
    let log = '';
    const stream = new PassThrough();
    stream.on('data', (c) => (log += c));
    const appPasswords: string[] = [];
    const t = useParley(dialect, { env: { LOG_LEVEL: 'info' }, logStream: stream, users: ['bob'] });

    it('uses every secret-bearing endpoint that exists', async () => {
      // Login with a password (Basic), a wrong one, and the login form.
      assert.equal((await t.call('GET', '/cloud/capabilities', { as: admin })).status, 200);
      assert.equal((await t.call('GET', '/cloud/user', { as: { user: 'admin', password: 'wrong-password-for-log-test' } })).status, 401);
      const form = await fetch(`${t.p.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ user: 'admin', password: ADMIN.password, redirect_url: '/settings/admin/talk' }),
      });
      assert.equal(form.status, 303);
      const cookie = form.headers.get('set-cookie')!.split(';')[0];
      SECRETS.push(cookie.split('=')[1]);
      // App passwords: created (returned once), used, rotated.
      const ap = await t.call('GET', '/core/getapppassword', { as: admin });
      assert.equal(ap.status, 200, ap.text);
      appPasswords.push(ap.data.apppassword);
      assert.equal((await t.call('GET', '/cloud/user', { as: { authorization: basic('admin', ap.data.apppassword) } })).status, 200);
      const rotated = await t.call('POST', '/core/apppassword/rotate', { as: { authorization: basic('admin', ap.data.apppassword) } });
      assert.equal(rotated.status, 200, rotated.text);
      appPasswords.push(rotated.data.apppassword);
      // Accounts with passwords.
      assert.equal((await t.call('POST', '/cloud/users', { as: admin, body: { userid: 'carol', password: 'New-user-Passw0rd!x' } })).status, 200);
      assert.equal((await t.call('PUT', '/cloud/users/carol', { as: admin, body: { key: 'password', value: 'Changed-Passw0rd!y' } })).status, 200);
      // App config secrets, through the API with the login session, and the SIP settings.
      const cfg = '/apps/provisioning_api/api/v1/config/apps/spreed';
      assert.equal(
        (await t.call('POST', `${cfg}/sip_bridge_shared_secret`, { headers: { Cookie: cookie }, body: { value: 'sip-secret-for-log-test' } })).status,
        200,
      );
      const turn = [{ schemes: 'turn', server: 'turn.example.org:3478', secret: 'turn-secret-for-log-test', protocols: 'udp' }];
      assert.equal((await t.call('POST', `${cfg}/turn_servers`, { as: admin, form: { value: JSON.stringify(turn) } })).status, 200);
      assert.equal(
        (
          await t.call('POST', `${cfg}/signaling_servers`, {
            as: admin,
            body: { value: { servers: [{ server: 'https://hpb.example.org', verify: true }], secret: 'hpb-secret-for-log-test' } },
          })
        ).status,
        200,
      );
      assert.equal((await t.call('GET', `${cfg}/sip_bridge_shared_secret`, { as: admin })).status, 200);
      const sip = await t.call('POST', '/apps/spreed/api/v1/settings/sip', {
        as: admin,
        body: { sipGroups: [], dialInInfo: 'x', sharedSecret: 'sip-secret-for-log-test' },
      });
      assert.equal(sip.status, 200, sip.text);
      // A secret in a query string, and a room password (at creation and set again).
      await t.call('GET', '/cloud/capabilities', { as: admin, query: { password: 'query-password-for-log-test' } });
      const room = await t.call('POST', '/apps/spreed/api/v4/room', {
        as: admin,
        body: { roomType: RoomType.PUBLIC, roomName: 'Logged', password: 'room-password-for-log-test' },
      });
      assert.equal(room.status, 201, room.text);
      const password = await t.call('PUT', `/apps/spreed/api/v4/room/${room.data.token}/password`, {
        as: admin,
        body: { password: 'room-password-for-log-test' },
      });
      assert.equal(password.status, 200, password.text);
    });

    it('writes one JSON line per request with request id, user, route, status and duration', async () => {
      await new Promise((r) => setTimeout(r, 50));
      const raw = log.trim().split('\n');
      // JSON.parse keeps the last of duplicate keys, so count them in the text: once per line.
      for (const line of raw.filter((l) => l.includes('"msg":"request"'))) assert.equal(line.split('"reqId"').length - 1, 1, line);
      const lines = raw.map((l) => JSON.parse(l));
      const requests = lines.filter((l) => l.msg === 'request');
      assert.ok(requests.length >= 12, `only ${requests.length} request lines`);
      for (const r of requests) {
        assert.equal(typeof r.reqId, 'string');
        assert.ok(r.reqId.length > 0);
        assert.equal(typeof r.route, 'string');
        assert.equal(typeof r.status, 'number');
        assert.equal(typeof r.ms, 'number');
        assert.ok('user' in r);
      }
      const ids = new Set(requests.map((r) => r.reqId));
      assert.equal(ids.size, requests.length, 'request ids are unique');
      const caps = requests.find((r) => r.route === '/ocs/v2.php/cloud/capabilities' && r.status === 200);
      assert.equal(caps.user, 'admin');
      assert.ok(requests.some((r) => r.route === '/ocs/v2.php/cloud/user' && r.status === 401 && r.user === null));
      assert.ok(requests.some((r) => r.route === '/login' && r.status === 303 && r.user === 'admin'));
    });

    it('contains no secret, password or credential', () => {
      const all = [...SECRETS, ...appPasswords];
      const encoded = all.flatMap((s) => [Buffer.from(`admin:${s}`).toString('base64'), Buffer.from(`carol:${s}`).toString('base64')]);
      for (const secret of [...all, ...encoded]) assert.ok(!log.includes(secret), `the log contains a secret: ${secret.slice(0, 6)}…`);
      assert.ok(!/authorization/i.test(log), 'the log mentions an Authorization header');
    });
  });
}
