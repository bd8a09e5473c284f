/**
 * Push delivery with two `parley serve` processes on one database (docs/talk-apps.md "Push
 * notifications"): messages posted through either process reach the phone exactly once, though
 * both processes' outbox workers and sweeping jobs race for the same outbox rows.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { dropSchema } from '../src/db/database.js';
import { admin, basic, dialects, freshEnv } from './helpers/parley.js';
import { ocs, serve, stop, TWO_PROCESS_PASSWORD, type Proc } from './helpers/processes.js';
import { eventually } from './helpers/eventually.js';
import { newDevice, startProxy } from './helpers/push-proxy.js';

const proxy = await startProxy();
after(() => proxy.close());

for (const dialect of dialects()) {
  describe(`push delivery across two processes [${dialect}]`, () => {
    let env: Record<string, string>;
    let a: Proc | undefined;
    let b: Proc | undefined;
    before(async () => {
      env = freshEnv(dialect, {
        BRUTE_FORCE_MAX_ATTEMPTS: '1000',
        BRUTE_FORCE_DELAY_MS: '0',
        PUSH_ALLOW_INSECURE: 'true',
        PUSH_PROXIES: proxy.url,
        // Both processes also sweep the outbox every second (the push-delivery job).
        JOBS: 'true',
        JOB_INTERVAL_SCALE: '0.001',
      });
      a = await serve(env);
      b = await serve(env);
      for (const userid of ['alice', 'bob']) {
        assert.equal((await ocs(a, 'POST', '/cloud/users', basic(admin.user!, admin.password!), { userid, password: TWO_PROCESS_PASSWORD })).status, 200);
      }
    });
    after(async () => {
      await Promise.all([stop(a), stop(b)]);
      if (env.DATABASE_URL && env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
      fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
    });

    it('each mention is pushed once, whichever process took the message', async () => {
      const bobAuth = basic('bob', TWO_PROCESS_PASSWORD);
      const ap = await ocs(a!, 'GET', '/core/getapppassword', basic('alice', TWO_PROCESS_PASSWORD));
      const aliceApp = basic('alice', ap.data.apppassword);
      const device = newDevice();
      const reg = await ocs(a!, 'POST', '/apps/notifications/api/v2/push', aliceApp, {
        pushTokenHash: device.pushTokenHash,
        devicePublicKey: device.publicKeyPem,
        proxyServer: proxy.url,
      });
      assert.equal(reg.status, 201);
      proxy.know(reg.data.deviceIdentifier, device, reg.data.publicKey);
      const room = await ocs(b!, 'POST', '/apps/spreed/api/v4/room', bobAuth, { roomType: '2', roomName: 'Twice?' });
      assert.equal(room.status, 201);
      assert.equal(
        (await ocs(b!, 'POST', `/apps/spreed/api/v4/room/${room.data.token}/participants`, bobAuth, { newParticipant: 'alice', source: 'users' })).status,
        200,
      );

      const from = proxy.received.length;
      const messages = 12;
      for (let i = 0; i < messages; i++) {
        const via = i % 3 === 0 ? a! : b!;
        const r = await ocs(via, 'POST', `/apps/spreed/api/v1/chat/${room.data.token}`, bobAuth, { message: `@alice number ${i}` });
        assert.equal(r.status, 201);
      }
      const mentions = () => proxy.received.slice(from).filter((p) => p.deviceIdentifier === reg.data.deviceIdentifier && p.subject?.type === 'chat');
      await eventually('every mention pushed', async () => new Set(mentions().map((p) => p.subject!.nid)).size === messages, 15_000);
      // Both processes keep sweeping: nothing is sent a second time.
      await sleep(2500);
      const byNid = new Map<number, number>();
      for (const p of mentions()) byNid.set(p.subject!.nid, (byNid.get(p.subject!.nid) ?? 0) + 1);
      assert.equal(byNid.size, messages);
      assert.deepEqual(
        [...byNid.values()].filter((n) => n !== 1),
        [],
        'each notification pushed exactly once',
      );
      assert.ok(mentions().every((p) => p.verified));
    });
  });
}
