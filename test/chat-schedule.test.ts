/**
 * Scheduled messages (docs/reference/chat.md#scheduled-messages, Talk 23's scheduled-messages
 * scenarios): GET/POST /chat/{token}/schedule and POST/DELETE /chat/{token}/schedule/{id} —
 * every status, bad input, XML — the record's `hasScheduledMessages`, and the job
 * `scheduled-messages`: due messages posted as their authors (mentions, silent, replies), failed
 * ones kept with `sendAt` 0, dropped ones of authors who left, and one post when two runs race.
 * The same on SQLite and PostgreSQL.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, dialects } from './helpers/parley.js';
import { NO_THROTTLE, RoomType, useParley, type RoomFixture } from './helpers/fixtures.js';
import { setRoom } from './helpers/rooms.js';
import { jobs, runJobIfDue } from '../src/jobs/index.js';
import { nowSeconds } from '../src/domain/time.js';

const V1 = '/apps/spreed/api/v1';
const V4 = '/apps/spreed/api/v4';
const LATER = () => nowSeconds() + 3600;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const dialect of dialects()) {
  describe(`scheduled messages [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob', 'carol', 'dave'] });
    let room: RoomFixture;

    before(async () => {
      room = await t.newRoom('alice', { members: ['bob', 'carol'] });
    });

    const caller = (who: any) => (typeof who === 'string' ? as(who) : who);
    const path = (token: string, id?: number | string) => `${V1}/chat/${token}/schedule${id === undefined ? '' : `/${id}`}`;
    const schedule = (who: any, body: Record<string, unknown>, token = room.token, opts: Record<string, unknown> = {}) =>
      t.call('POST', path(token), { as: caller(who), body, ...opts });
    const list = (who: any, token = room.token, opts: Record<string, unknown> = {}) => t.call('GET', path(token), { as: caller(who), ...opts });
    const edit = (who: any, id: number | string, body: Record<string, unknown>, token = room.token) =>
      t.call('POST', path(token, id), { as: caller(who), body });
    const remove = (who: any, id: number | string, token = room.token) => t.call('DELETE', path(token, id), { as: caller(who) });
    const count = async (who: string, token = room.token) => {
      const r = await t.call('GET', `${V4}/room/${token}`, { as: as(who) });
      assert.equal(r.status, 200, r.text);
      return r.data.hasScheduledMessages;
    };
    const runJob = async () => {
      const out = await runJobIfDue(
        t.p.services,
        jobs.find((j) => j.name === 'scheduled-messages')!,
        true,
      );
      assert.equal(out.status, 'ok', out.error);
      return out.summary;
    };
    /** Waits until `sendAt` has passed on the real clock. */
    const until = async (sendAt: number) => {
      while (nowSeconds() <= sendAt) await sleep(100);
    };

    it('201 schedules as Talk answers it; the list, hasScheduledMessages and nothing in the chat yet', async () => {
      const sendAt = LATER();
      const before = (await t.history(room, 'bob')).length;
      const r = await schedule('alice', { message: '  Stand-up in five  ', sendAt });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.data, {
        id: r.data.id,
        actorId: 'alice',
        actorType: 'users',
        threadId: 0,
        message: 'Stand-up in five',
        messageType: 'comment',
        createdAt: r.data.createdAt,
        sendAt,
        silent: false,
      });
      assert.equal(typeof r.data.id, 'string');
      assert.ok(Math.abs(r.data.createdAt - nowSeconds()) <= 2);
      assert.deepEqual((await list('alice')).data, [r.data]);
      assert.deepEqual((await list('bob')).data, [], "only the author's own");
      assert.equal(await count('alice'), 1);
      assert.equal(await count('bob'), 0);
      assert.equal((await t.history(room, 'bob')).length, before, 'nothing is posted yet');
      assert.equal((await remove('alice', r.data.id)).status, 200);
    });

    it('the list is by time; 202 edits text, time and silent; DELETE 200 [] removes; the count follows', async () => {
      // One base time: two LATER() calls a second apart would disagree (seen on a loaded machine).
      const base = LATER();
      const a = (await schedule('alice', { message: 'Second', sendAt: base + 60 })).data;
      const b = (await schedule('alice', { message: 'First', sendAt: base })).data;
      assert.deepEqual(
        (await list('alice')).data.map((m: any) => m.message),
        ['First', 'Second'],
      );
      assert.equal(await count('alice'), 2);
      const e = await edit('alice', a.id, { message: 'Second, edited', sendAt: base - 60, silent: true });
      assert.equal(e.status, 202, e.text);
      assert.deepEqual([e.data.id, e.data.message, e.data.sendAt, e.data.silent], [a.id, 'Second, edited', base - 60, true]);
      assert.deepEqual(
        (await list('alice')).data.map((m: any) => m.message),
        ['Second, edited', 'First'],
        'moved before the other',
      );
      const d = await remove('alice', a.id);
      assert.equal(d.status, 200);
      assert.deepEqual(d.data, []);
      assert.equal(await count('alice'), 1);
      assert.equal((await remove('alice', b.id)).status, 200);
      assert.equal(await count('alice'), 0);
    });

    it('a reply carries its parent; replyTo and threadId refusals are 400 reply-to', async () => {
      const parent = await t.say(room, 'bob', 'Can you remind everyone?');
      const r = await schedule('alice', { message: 'Reminder!', sendAt: LATER(), replyTo: parent });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.data.parent.id, parent);
      assert.equal(r.data.parent.message, 'Can you remind everyone?');
      const system = (await t.history(room, 'alice', 200)).find((m) => m.messageType === 'system').id;
      for (const body of [{ replyTo: system }, { replyTo: 999999999 }, { replyTo: -1 }, { threadId: 5 }, { threadId: -1 }]) {
        const bad = await schedule('alice', { message: 'x', sendAt: LATER(), ...body });
        assert.deepEqual([bad.status, bad.data.error], [400, 'reply-to'], JSON.stringify(body));
      }
      assert.equal((await remove('alice', r.data.id)).status, 200);
    });

    it('refusals: 401 guests, 404 strangers and self-joined users, 400 send-at and message, 413, 403 read-only and permission, 412 lobby; each changes nothing', async () => {
      const open = await t.newRoom('alice', { type: RoomType.PUBLIC });
      const guest = await t.newGuest(open);
      assert.equal((await schedule(guest.caller, { message: 'x', sendAt: LATER() }, open.token)).status, 401);
      assert.equal((await list(guest.caller, open.token)).status, 401);
      // dave joins the public conversation by himself (self-joined).
      assert.equal((await t.call('POST', `${V4}/room/${open.token}/participants/active`, { as: as('dave') })).status, 200);
      const self = await schedule('dave', { message: 'x', sendAt: LATER() }, open.token);
      assert.deepEqual([self.status, self.data.error], [404, 'actor']);
      assert.equal((await list('dave')).status, 404, 'not a participant');
      assert.equal((await schedule('dave', { message: 'x', sendAt: LATER() })).status, 404);
      assert.equal((await list('alice', 'nosuchtoken')).status, 404);

      const cases: Array<[Record<string, unknown>, number, string]> = [
        [{ message: 'x', sendAt: nowSeconds() - 10 }, 400, 'send-at'],
        [{ message: 'x', sendAt: nowSeconds() }, 400, 'send-at'],
        [{ message: 'x' }, 400, 'send-at'],
        [{ message: 'x', sendAt: 'tomorrow' }, 400, 'send-at'],
        [{ message: 'x', sendAt: 2 ** 60 }, 400, 'send-at'],
        [{ message: '   ', sendAt: LATER() }, 400, 'message'],
        [{ sendAt: LATER() }, 400, 'message'],
        [{ message: 'a\u0000b', sendAt: LATER() }, 400, 'message'],
        [{ message: 'x'.repeat(32001), sendAt: LATER() }, 413, 'message'],
        [{ message: 'x', sendAt: LATER(), silent: 'maybe' }, 400, 'silent'],
      ];
      for (const [body, status, error] of cases) {
        const r = await schedule('bob', body);
        assert.deepEqual([r.status, r.data?.error], [status, error], JSON.stringify(body).slice(0, 80));
      }
      assert.deepEqual((await list('bob')).data, [], 'nothing was scheduled');

      const mine = (await schedule('bob', { message: 'Mine', sendAt: LATER() })).data;
      assert.deepEqual(
        [(await edit('carol', mine.id, { message: 'Hijack', sendAt: LATER() })).status, (await remove('carol', mine.id)).data.error],
        [404, 'message'],
      );
      assert.equal((await edit('bob', 999999, { message: 'x', sendAt: LATER() })).status, 404);
      assert.equal((await edit('bob', mine.id, { message: 'x'.repeat(32001), sendAt: LATER() })).status, 413);
      assert.equal((await edit('bob', mine.id, { message: 'x', sendAt: 1 })).data.error, 'send-at');
      assert.equal((await edit('bob', 'abc', { message: 'x', sendAt: LATER() })).status, 400);
      assert.equal((await list('bob')).data[0].message, 'Mine', 'the refused edits changed nothing');

      await setRoom(t.p, room.token, { read_only: 1 });
      assert.equal((await list('bob')).status, 403);
      assert.equal((await schedule('bob', { message: 'x', sendAt: LATER() })).status, 403);
      await setRoom(t.p, room.token, { read_only: 0, lobby_state: 1 });
      assert.equal((await schedule('bob', { message: 'x', sendAt: LATER() })).status, 412);
      await setRoom(t.p, room.token, { lobby_state: 0, default_permissions: 1 | 2 | 4 | 8 | 16 | 32 | 64 });
      assert.equal((await schedule('bob', { message: 'x', sendAt: LATER() })).data.error, 'permission');
      await setRoom(t.p, room.token, { default_permissions: 0 });
      assert.equal((await remove('bob', mine.id)).status, 200);
    });

    it('the job posts a due message as its author: mentions, silent, reply; then it is gone and the count is 0', async () => {
      const parent = await t.say(room, 'carol', 'Who brings cake?');
      const sendAt = nowSeconds() + 1;
      assert.equal((await schedule('alice', { message: 'I do, @bob helps', sendAt, silent: true, replyTo: parent })).status, 201);
      const later = (await schedule('alice', { message: 'Not yet', sendAt: LATER() })).data;
      assert.equal(await runJob(), '0 messages sent, 0 failed', 'not due yet');
      await until(sendAt);
      assert.equal(await runJob(), '1 messages sent, 0 failed');
      assert.equal(await runJob(), '0 messages sent, 0 failed', 'posted once');
      const [posted] = await t.history(room, 'bob', 1);
      assert.deepEqual([posted.actorId, posted.message, posted.silent, posted.parent.id], ['alice', 'I do, {mention-user1} helps', true, parent]);
      assert.equal(posted.messageParameters['mention-user1'].id, 'bob');
      assert.ok(Math.abs(posted.timestamp - nowSeconds()) <= 2, 'dated when it was sent');
      assert.deepEqual(
        (await list('alice')).data.map((m: any) => m.id),
        [later.id],
      );
      assert.equal(await count('alice'), 1);
      const bobView = (await t.call('GET', `${V4}/room/${room.token}`, { as: as('bob') })).data;
      assert.equal(bobView.unreadMentionDirect, true, 'the mention counts as a sent one does');
      assert.equal((await remove('alice', later.id)).status, 200);
    });

    it('a message that can no longer be posted fails: sendAt 0, originalSendAt, hasScheduledMessages -1; an edit schedules it again', async () => {
      const locked = await t.newRoom('alice', { members: ['bob'] });
      const sendAt = nowSeconds() + 1;
      const r = await schedule('bob', { message: 'Too late', sendAt }, locked.token);
      assert.equal(r.status, 201);
      await setRoom(t.p, locked.token, { read_only: 1 });
      await until(sendAt);
      assert.equal(await runJob(), '0 messages sent, 1 failed');
      await setRoom(t.p, locked.token, { read_only: 0 });
      const [failed] = (await list('bob', locked.token)).data;
      assert.deepEqual([failed.id, failed.sendAt, failed.originalSendAt], [r.data.id, 0, sendAt]);
      assert.equal(await count('bob', locked.token), -1);
      assert.equal(await runJob(), '0 messages sent, 0 failed', 'a failed message is not retried');
      const again = await edit('bob', r.data.id, { message: 'Try again', sendAt: LATER() }, locked.token);
      assert.equal(again.status, 202);
      assert.equal(again.data.originalSendAt, undefined);
      assert.equal(await count('bob', locked.token), 1);
    });

    it('the author left: the message is dropped, nothing is posted', async () => {
      const left = await t.newRoom('alice', { members: ['carol'] });
      const sendAt = nowSeconds() + 1;
      assert.equal((await schedule('carol', { message: 'Bye', sendAt }, left.token)).status, 201);
      assert.equal((await t.call('DELETE', `${V4}/room/${left.token}/participants/self`, { as: as('carol') })).status, 200);
      const before = (await t.history(left, 'alice')).length;
      await until(sendAt);
      assert.equal(await runJob(), '0 messages sent, 0 failed');
      assert.equal((await t.history(left, 'alice')).length, before);
      const rows = await t.services.db.kysely.selectFrom('scheduled_messages').selectAll().where('actor_id', '=', 'carol').execute();
      assert.deepEqual(rows, []);
    });

    it('two runs at once post a due message once (the claim is one conditional update)', async () => {
      const race = await t.newRoom('alice', { members: ['bob'] });
      const sendAt = nowSeconds() + 1;
      for (let i = 0; i < 5; i++) assert.equal((await schedule('bob', { message: `race ${i}`, sendAt }, race.token)).status, 201);
      await until(sendAt);
      const [x, y] = await Promise.all([t.services.chatSchedule.sendDue(nowSeconds()), t.services.chatSchedule.sendDue(nowSeconds())]);
      assert.equal(x.sent + y.sent, 5, JSON.stringify([x, y]));
      const posted = (await t.history(race, 'alice')).filter((m) => m.message.startsWith('race '));
      assert.equal(posted.length, 5);
      assert.equal(await count('bob', race.token), 0);
    });

    it('XML, and the capability (local)', async () => {
      const r = await schedule('alice', { message: 'In XML', sendAt: LATER() }, room.token, { format: 'xml' });
      assert.equal(r.status, 201);
      assert.match(r.text, /<message>In XML<\/message>\s*<messageType>comment<\/messageType>/);
      assert.match((await list('alice', room.token, { format: 'xml' })).text, /<silent><\/silent>/);
      const id = /<id>(\d+)<\/id>/.exec(r.text)![1];
      assert.equal((await remove('alice', id)).status, 200);
      const caps = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      assert.ok(caps.data.capabilities.spreed['features-local'].includes('scheduled-messages'));
      assert.ok(caps.data.capabilities.spreed.features.includes('scheduled-messages'));
    });

    it('a deleted conversation and a deleted user take their scheduled messages along', async () => {
      const doomed = await t.newRoom('alice', { members: ['bob'] });
      assert.equal((await schedule('bob', { message: 'Never', sendAt: LATER() }, doomed.token)).status, 201);
      assert.equal((await t.call('DELETE', `${V4}/room/${doomed.token}`, { as: as('alice') })).status, 200);
      const bobs = await t.services.db.kysely.selectFrom('scheduled_messages').select('message').where('actor_id', '=', 'bob').execute();
      assert.ok(!bobs.some((m) => m.message === 'Never'));
      const erin = await t.newUser('erin');
      const kept = await t.newRoom('alice', { members: [erin.id] });
      assert.equal((await schedule(erin.caller, { message: 'Gone with me', sendAt: LATER() }, kept.token)).status, 201);
      assert.equal((await t.call('DELETE', '/cloud/users/erin', { as: admin })).status, 200);
      const left = await t.services.db.kysely.selectFrom('scheduled_messages').select('id').where('actor_id', '=', 'erin').execute();
      assert.deepEqual(left, []);
    });
  });
}
