/**
 * Push delivery (docs/talk-apps.md "Push notifications") through a stand-in proxy on loopback
 * that decrypts with the phone's private key and verifies with the account key: a mention, a
 * reply and a ringing call arrive as the notifications app sends them; reading sends the silent
 * delete, dismissing all sends delete-all; unregistering or revoking the app password stops the
 * pushes; a proxy that fails or hangs does not slow the chat post, and what it refused arrives
 * once it is back; a device the proxy calls unknown is unregistered.
 */
import { after, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { jobs, runJobIfDue } from '../src/jobs/index.js';
import assert from 'node:assert/strict';
import { RoomType, useParley, V4 } from './helpers/fixtures.js';
import { dialects, passwordOf, type Caller } from './helpers/parley.js';
import { countQueries, enterRoom } from './helpers/rooms.js';
import { eventually } from './helpers/eventually.js';
import { newDevice, startProxy, type ReceivedPush } from './helpers/push-proxy.js';

const PUSH = '/apps/notifications/api/v2/push';
const TALK_UA = 'Mozilla/5.0 (iOS) Nextcloud-Talk v20.0.0';
const CHAT = '/apps/spreed/api/v1/chat';

const proxy = await startProxy();
after(() => proxy.close());

for (const dialect of dialects()) {
  describe(`push delivery [${dialect}]`, () => {
    const t = useParley(dialect, {
      users: ['alice', 'bob', 'carol', 'dora'],
      env: { PUSH_ALLOW_INSECURE: 'true', PUSH_PROXIES: proxy.url, BRUTE_FORCE_DELAY_MS: '0' },
    });

    beforeEach(() => {
      proxy.answer = { status: 200 };
      proxy.unknown.clear();
    });

    /** A phone of `user`: an app password (as Login Flow gives one), registered, and known to the proxy. */
    async function phone(user: string): Promise<{ caller: Caller; deviceIdentifier: string }> {
      const ap = await t.call('GET', '/core/getapppassword', { as: { user, password: passwordOf(user) }, headers: { 'User-Agent': TALK_UA } });
      const caller = { user, password: ap.data.apppassword as string };
      const device = newDevice();
      const r = await t.call('POST', PUSH, {
        as: caller,
        headers: { 'User-Agent': TALK_UA },
        body: { pushTokenHash: device.pushTokenHash, devicePublicKey: device.publicKeyPem, proxyServer: proxy.url },
      });
      assert.equal(r.status, 201, r.text);
      proxy.know(r.data.deviceIdentifier, device, r.data.publicKey);
      return { caller, deviceIdentifier: r.data.deviceIdentifier };
    }

    /** Waits for a push to `deviceIdentifier` matching `match`, received after `from`. */
    async function pushTo(deviceIdentifier: string, from: number, match: (p: ReceivedPush) => boolean): Promise<ReceivedPush> {
      let found: ReceivedPush | undefined;
      await eventually(`a push to ${deviceIdentifier.slice(0, 8)}`, async () => {
        found = proxy.received.slice(from).find((p) => p.deviceIdentifier === deviceIdentifier && match(p));
        return found !== undefined;
      });
      return found!;
    }

    it('a mention and a reply arrive decryptable and verified; reading sends the silent delete', async () => {
      const alice = await phone('alice');
      const room = await t.newRoom('bob', { name: 'Standup', members: ['alice'] });
      const from = proxy.received.length;
      const mentionId = await t.say(room, 'bob', 'hello @alice');
      const mention = await pushTo(alice.deviceIdentifier, from, (p) => p.subject?.type === 'chat');
      assert.equal(mention.verified, true, 'signed with the account key');
      assert.equal(mention.priority, 'high');
      assert.equal(mention.type, 'alert');
      assert.deepEqual(Object.keys(mention.subject!), ['nid', 'app', 'subject', 'type', 'id']);
      assert.equal(mention.subject!.app, 'spreed');
      assert.equal(mention.subject!.subject, 'bob mentioned you in conversation Standup');
      assert.equal(mention.subject!.id, `${room.token}/${mentionId}`);
      const notes = await t.call('GET', '/apps/notifications/api/v2/notifications', { as: alice.caller });
      assert.equal(notes.data[0].notification_id, mention.subject!.nid, 'nid names the notification the app can fetch');

      // A reply to alice's message.
      const own = await t.say(room, 'alice', 'my question');
      const from2 = proxy.received.length;
      const r = await t.call('POST', `${CHAT}/${room.token}`, {
        as: { user: 'bob', password: passwordOf('bob') },
        body: { message: 'the answer', replyTo: own },
      });
      assert.equal(r.status, 201);
      const reply = await pushTo(alice.deviceIdentifier, from2, (p) => p.subject?.subject === 'bob replied to your message in conversation Standup');
      assert.equal(reply.verified, true);

      // Reading the chat reads the notifications: their silent deletes follow.
      const from3 = proxy.received.length;
      const read = await t.call('POST', `${CHAT}/${room.token}/read`, { as: alice.caller, body: { lastReadMessage: r.data.id } });
      assert.equal(read.status, 200, read.text);
      const deleted = new Set<number>();
      await eventually('the silent deletes', async () => {
        for (const p of proxy.received.slice(from3).filter((x) => x.deviceIdentifier === alice.deviceIdentifier)) {
          assert.equal(p.type, 'background');
          assert.equal(p.priority, 'normal');
          assert.equal(p.verified, true);
          if (p.subject!.delete === true) deleted.add(p.subject!.nid);
          if (p.subject!['delete-multiple'] === true) for (const n of p.subject!.nids) deleted.add(n);
        }
        return deleted.has(mention.subject!.nid) && deleted.has(reply.subject!.nid);
      });
    });

    it('a deleted message takes its notification along: the silent delete follows at once', async () => {
      const alice = await phone('alice');
      const room = await t.newRoom('bob', { name: 'Oops', members: ['alice'] });
      const from = proxy.received.length;
      const id = await t.say(room, 'bob', '@alice wrong room');
      const mention = await pushTo(alice.deviceIdentifier, from, (p) => p.subject?.id === `${room.token}/${id}`);
      const from2 = proxy.received.length;
      const del = await t.call('DELETE', `${CHAT}/${room.token}/${id}`, { as: { user: 'bob', password: passwordOf('bob') } });
      assert.equal(del.status, 200, del.text);
      await pushTo(alice.deviceIdentifier, from2, (p) => p.subject?.delete === true && p.subject?.nid === mention.subject!.nid);
    });

    it('an expired message takes its notification along when the expiration job deletes it', async () => {
      const alice = await phone('alice');
      const room = await t.newRoom('bob', { name: 'Fleeting', members: ['alice'] });
      const set = await t.call('POST', `${V4}/room/${room.token}/message-expiration`, {
        as: { user: 'bob', password: passwordOf('bob') },
        body: { seconds: 1 },
      });
      assert.equal(set.status, 200, set.text);
      const from = proxy.received.length;
      const id = await t.say(room, 'bob', '@alice gone soon');
      const mention = await pushTo(alice.deviceIdentifier, from, (p) => p.subject?.id === `${room.token}/${id}`);
      await sleep(2100);
      const from2 = proxy.received.length;
      const out = await runJobIfDue(
        t.services,
        jobs.find((j) => j.name === 'message-expiration')!,
        true,
      );
      assert.equal(out.status, 'ok', out.error);
      await pushTo(alice.deviceIdentifier, from2, (p) => p.subject?.delete === true && p.subject?.nid === mention.subject!.nid);
    });

    it('a call rings as a high-priority VoIP push; dismissing all sends delete-all', async () => {
      const alice = await phone('alice');
      const room = await t.newRoom('bob', { type: RoomType.GROUP, name: 'Ring', members: ['alice'] });
      const bob = await enterRoom(t.p, 'bob', room.token);
      const from = proxy.received.length;
      assert.equal((await t.call('POST', `${V4}/call/${room.token}`, { as: bob, body: {} })).status, 200);
      const ring = await pushTo(alice.deviceIdentifier, from, (p) => p.subject?.type === 'call');
      assert.equal(ring.verified, true);
      assert.equal(ring.priority, 'high');
      assert.equal(ring.type, 'voip');
      assert.equal(ring.subject!.id, room.token);
      assert.equal(ring.subject!.subject, 'A group call has started in Ring');

      const from2 = proxy.received.length;
      assert.equal((await t.call('DELETE', '/apps/notifications/api/v2/notifications', { as: alice.caller })).status, 200);
      await pushTo(alice.deviceIdentifier, from2, (p) => p.subject?.['delete-all'] === true);
    });

    it('unregistering or revoking the app password stops the pushes', async () => {
      const one = await phone('carol');
      const two = await phone('carol');
      const room = await t.newRoom('bob', { name: 'Quiet', members: ['carol'] });
      assert.equal((await t.call('DELETE', PUSH, { as: one.caller })).status, 202);
      assert.equal((await t.call('DELETE', '/core/apppassword', { as: two.caller })).status, 200);
      const from = proxy.received.length;
      await t.say(room, 'bob', 'anyone there, @carol?');
      await t.services.outbox.idle();
      await t.services.outbox.drainOnce();
      assert.equal(
        proxy.received.slice(from).filter((p) => p.deviceIdentifier === one.deviceIdentifier || p.deviceIdentifier === two.deviceIdentifier).length,
        0,
      );
      assert.equal((await t.services.repos.outbox.pending()).length, 0, 'nothing left owed');
    });

    it('a hanging or failing proxy does not slow the chat post; refused pushes arrive once it is back', async () => {
      const alice = await phone('alice');
      const room = await t.newRoom('bob', { name: 'Slow', members: ['alice'] });
      proxy.answer = { status: 200, delayMs: 3000 };
      let started = Date.now();
      await t.say(room, 'bob', '@alice are you there?');
      assert.ok(Date.now() - started < 1500, `the post took ${Date.now() - started} ms behind a hanging proxy`);
      await t.services.outbox.idle();

      proxy.answer = { status: 503 };
      const from = proxy.received.length;
      const postsBefore = proxy.posts;
      started = Date.now();
      await t.say(room, 'bob', '@alice still there?');
      assert.ok(Date.now() - started < 1500, `the post took ${Date.now() - started} ms behind a failing proxy`);
      await eventually('the proxy refused once', async () => proxy.posts > postsBefore);
      await t.services.outbox.idle();
      assert.ok((await t.services.repos.outbox.pending()).length > 0, 'kept for a retry');
      proxy.answer = { status: 200 };
      const late = await pushTo(alice.deviceIdentifier, from, (p) => p.subject?.subject === 'bob mentioned you in conversation Slow');
      assert.equal(late.verified, true);
      const metrics = await t.call('GET', '/metrics', { format: 'none' });
      assert.match(metrics.text, /parley_outbox_rows_total\{topic="push",result="retry"\} [1-9]/);
      assert.match(metrics.text, /parley_push_sent_total\{channel="proxy",kind="notify"\} [1-9]/);
    });

    it('a device the proxy calls unknown is unregistered', async () => {
      const bob = await phone('bob');
      proxy.unknown.add(bob.deviceIdentifier);
      const room = await t.newRoom('alice', { name: 'Gone', members: ['bob'] });
      await t.say(room, 'alice', '@bob hi');
      await eventually('the device is unregistered', async () => (await t.services.repos.pushDevices.forUser('bob')).length === 0);
    });

    it('a row claimed by a process that died is delivered once its claim expires', async () => {
      const carol = await phone('carol');
      const room = await t.newRoom('bob', { name: 'Crash', members: ['carol'] });
      const from = proxy.received.length;
      await t.say(room, 'bob', '@carol first');
      const first = await pushTo(carol.deviceIdentifier, from, (p) => p.subject?.type === 'chat');
      const [device] = await t.services.repos.pushDevices.forUser('carol');
      // What a process leaves behind when it dies between its claim and the delivery.
      await t.services.db.kysely
        .insertInto('outbox')
        .values({
          topic: 'push',
          destination: device.proxy_server,
          dedupe_key: 'crashed',
          payload: JSON.stringify({ kind: 'notify', device: Number(device.id), nid: first.subject!.nid }),
          attempts: 1,
          claimed_by: 'a-dead-process',
          claimed_until: Date.now() + 300,
          created_at: Math.floor(Date.now() / 1000),
        })
        .execute();
      const from2 = proxy.received.length;
      t.services.outbox.kick();
      const again = await pushTo(carol.deviceIdentifier, from2, (p) => p.subject?.nid === first.subject!.nid);
      assert.equal(again.verified, true);
      await eventually('the row is done', async () => (await t.services.repos.outbox.pending()).length === 0);
    });

    it('"do not disturb" holds pushes back, except from conversations marked important', async () => {
      const dora = await phone('dora');
      const quiet = await t.newRoom('bob', { name: 'Quiet hours', members: ['dora'] });
      const vip = await t.newRoom('bob', { name: 'Family', members: ['dora'] });
      assert.equal((await t.call('POST', `${V4}/room/${vip.token}/important`, { as: dora.caller })).status, 200);
      const dnd = await t.call('PUT', '/apps/user_status/api/v1/user_status/status', { as: dora.caller, body: { statusType: 'dnd' } });
      assert.equal(dnd.status, 200, dnd.text);
      const from = proxy.received.length;
      await t.say(quiet, 'bob', '@dora can wait');
      await t.say(vip, 'bob', '@dora urgent');
      await pushTo(dora.deviceIdentifier, from, (p) => p.subject?.subject === 'bob mentioned you in conversation Family');
      await t.services.outbox.idle();
      assert.equal(proxy.received.slice(from).filter((p) => p.subject?.subject === 'bob mentioned you in conversation Quiet hours').length, 0);
      assert.match((await t.call('GET', '/metrics', { format: 'none' })).text, /parley_push_dropped_total\{channel="proxy",reason="dnd"\} [1-9]/);
    });

    it('delivering pushes to N users costs the same statements whatever N', async () => {
      /** Statements of one message to a conversation of `n` members each with a phone, until every push is handed over. */
      async function statementsFor(n: number): Promise<number> {
        const phones: Array<{ deviceIdentifier: string }> = [];
        const members: string[] = [];
        for (let i = 0; i < n; i++) {
          const u = await t.newUser(`fan${n}x${i}`);
          members.push(u.id);
          phones.push(await phone(u.id));
        }
        const room = await t.newRoom('bob', { name: `Fan-out ${n}`, members });
        await t.services.outbox.idle();
        const from = proxy.received.length;
        const devices = new Set(phones.map((ph) => ph.deviceIdentifier));
        return countQueries(t.p, async () => {
          await t.say(room, 'bob', '@all news for everybody');
          await eventually(
            `${n} pushes`,
            async () => proxy.received.slice(from).filter((p) => devices.has(p.deviceIdentifier) && p.subject?.type === 'chat').length === n,
          );
          await t.services.outbox.idle();
        });
      }
      const few = await statementsFor(2);
      const many = await statementsFor(12);
      assert.equal(many, few, `statements for 12 pushes (${many}) against 2 (${few})`);
    });

    it('capabilities advertise the push features', async () => {
      const caps = await t.call('GET', '/cloud/capabilities', { as: { user: 'alice', password: passwordOf('alice') } });
      assert.deepEqual(caps.data.capabilities.notifications.push, ['devices', 'object-data', 'delete']);
    });
  });
}
