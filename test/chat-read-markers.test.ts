/**
 * Mentions, read markers and the chat fields of the conversation record (docs/reference/chat.md#mentions, docs/reference/chat.md#read-markers read marker / mark unread, docs/reference/chat.md#common-rules common read): unreadMessages,
 * unreadMention(Direct), lastReadMessage, lastCommonReadMessage with read privacy, lastMessage,
 * and GET /room's constant query count with messages.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects } from './helpers/parley.js';
import { countQueries, createRoom, joinGuest, roomRow, seedUser, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`chat read markers and mentions [${dialect}]`, () => {
    const t = useParley(dialect);
    let room: any;
    before(async () => {
      await createUser(t.p, 'alice', { displayName: 'Alice A' });
      await createUser(t.p, 'bob', { displayName: 'Bob B' });
      await createUser(t.p, 'carol', { groups: ['staff'] });
      room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Marks' });
      await seedUser(t.p, room.token, 'bob');
      await seedUser(t.p, room.token, 'carol');
    });

    const send = (who: string, message: string, extra: Record<string, unknown> = {}) =>
      t.call('POST', `${V1}/chat/${room.token}`, { as: as(who), body: { message, ...extra } });
    const record = async (who: string) => (await t.call('GET', `${V4}/room/${room.token}`, { as: as(who) })).data;
    const read = (who: string, lastReadMessage?: number | null) =>
      t.call('POST', `${V1}/chat/${room.token}/read`, { as: as(who), body: lastReadMessage === undefined ? {} : { lastReadMessage } });

    it('mentions become placeholders with rich objects; unknown ones stay text', async () => {
      const r = await send('alice', 'hi @bob and @"group/staff", not @nobody, and @all');
      assert.equal(r.status, 201);
      assert.equal(r.data.message, 'hi {mention-user1} and {mention-user-group1}, not @nobody, and {mention-call1}');
      assert.deepEqual(r.data.messageParameters['mention-user1'], { type: 'user', id: 'bob', name: 'Bob B', 'mention-id': 'bob' });
      assert.equal(r.data.messageParameters['mention-user-group1'].id, 'staff');
      assert.equal(r.data.messageParameters['mention-call1'].type, 'call');
      assert.equal(r.data.messageParameters['mention-call1'].id, room.token);
    });

    it('unreadMention follows @all and groups; unreadMentionDirect only direct mentions', async () => {
      const carol = await record('carol');
      assert.equal(carol.unreadMention, true, '@all and @group mention carol');
      assert.equal(carol.unreadMentionDirect, false, 'not directly');
      const bob = await record('bob');
      assert.equal(bob.unreadMention, true);
      assert.equal(bob.unreadMentionDirect, true);
      const alice = await record('alice');
      assert.equal(alice.unreadMention, false, 'the author is not mentioned by her own @all');
      assert.equal(alice.unreadMessages, 0, 'own messages are read');
    });

    it('a reply mentions the replied author directly', async () => {
      const q = await send('carol', 'question');
      await read('carol');
      await send('alice', 'answer', { replyTo: q.data.id });
      const carol = await record('carol');
      assert.equal(carol.unreadMentionDirect, true);
    });

    it('unreadMessages counts chat messages after the read marker; POST read clears it', async () => {
      await read('bob');
      await send('alice', 'one');
      await send('alice', 'two');
      await t.call('PUT', `${V4}/room/${room.token}/description`, { as: as('alice'), body: { description: 'system messages are not unread' } });
      const bob = await record('bob');
      assert.equal(bob.unreadMessages, 2);
      assert.equal(bob.lastMessage.systemMessage, 'description_set');
      const r = await read('bob', null);
      assert.equal(r.status, 200);
      assert.equal(r.data.unreadMessages, 0);
      assert.equal(r.data.lastReadMessage, (await roomRow(t.p, room.token))!.last_message);
      assert.equal(r.data.unreadMention, false);
    });

    it('every record carries the chat fields: joining answers lastMessage and unreadMessages as GET /room/{token} does', async () => {
      await read('bob');
      await send('alice', 'before bob joins');
      const join = await t.call('POST', `${V4}/room/${room.token}/participants/active`, { as: as('bob') });
      assert.equal(join.status, 200);
      assert.equal(join.data.lastMessage.message, 'before bob joins');
      assert.equal(join.data.unreadMessages, 1);
      assert.equal(join.data.lastMessage.id, (await record('bob')).lastMessage.id);
    });

    it('read marker 0 means "first message unread" (-2); below -2 is 400', async () => {
      const r = await read('bob', 0);
      assert.equal(r.data.lastReadMessage, -2);
      const history = await t.call('GET', `${V1}/chat/${room.token}`, { as: as('bob'), query: { lookIntoFuture: 0, limit: 200 } });
      const chatMessages = history.data.filter((m: any) => m.systemMessage === '').length;
      assert.ok(chatMessages >= 3);
      assert.equal(r.data.unreadMessages, chatMessages, 'every chat message of the conversation is unread');
      for (const lastReadMessage of [-3, 'x', 1.5, 1e20, [1]]) {
        const bad = await t.call('POST', `${V1}/chat/${room.token}/read`, { as: as('bob'), body: { lastReadMessage } });
        assert.deepEqual([bad.status, bad.data?.error], [400, 'lastReadMessage'], `${JSON.stringify(lastReadMessage)}: ${bad.text}`);
      }
      const bob = await t.p.services.repos.attendees.find((await roomRow(t.p, room.token))!.id, 'users', 'bob');
      assert.equal(bob!.last_read_message, -2, 'refused markers left it where it was');
    });

    it('DELETE read marks the last chat message unread', async () => {
      await read('bob', null);
      const a = await send('alice', 'first');
      const b = await send('alice', 'second');
      await read('bob', null);
      const r = await t.call('DELETE', `${V1}/chat/${room.token}/read`, { as: as('bob') });
      assert.equal(r.status, 200);
      assert.equal(r.data.lastReadMessage, a.data.id);
      assert.equal(r.data.unreadMessages, 1);
      assert.ok(b.data.id > a.data.id);
    });

    it('lastCommonReadMessage: MIN over public readers; private readers see 0 and no header', async () => {
      const m = await send('alice', 'common');
      await read('alice', null);
      await read('bob', null);
      await read('carol', m.data.id - 1);
      assert.equal((await record('alice')).lastCommonReadMessage, m.data.id - 1);
      await read('carol', null);
      const all = await read('alice', null);
      assert.equal(all.headers.get('x-chat-last-common-read'), String(m.data.id));
      // Carol makes her read status private: she is left out, and she sees 0.
      await t.call('POST', '/apps/spreed/api/v1/settings/user', { as: as('carol'), body: { key: 'read_status_privacy', value: 1 } });
      const carolRow = (await t.p.services.repos.attendees.find((await roomRow(t.p, room.token))!.id, 'users', 'carol'))!;
      assert.equal(carolRow.read_privacy, 1, 'the preference reaches the attendee rows');
      await read('carol', 1);
      assert.equal((await record('alice')).lastCommonReadMessage, m.data.id, 'private readers are not counted');
      assert.equal((await record('carol')).lastCommonReadMessage, 0);
      const h = await t.call('GET', `${V1}/chat/${room.token}`, { as: as('carol'), query: { lookIntoFuture: 0, limit: 1 } });
      assert.equal(h.headers.get('x-chat-last-common-read'), null);
    });

    it('guests cannot set read markers (404); outsiders and unknown tokens get 404 room', async () => {
      const pub = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Public marks' });
      const guest = await joinGuest(t.p, pub.token);
      assert.equal((await t.call('POST', `${V1}/chat/${pub.token}/read`, { as: guest.caller, body: {} })).status, 404);
      assert.equal((await t.call('DELETE', `${V1}/chat/${pub.token}/read`, { as: guest.caller })).status, 404);
      await t.newUser('dave');
      for (const [token, who] of [
        [room.token, 'dave'],
        ['zzzzzzzz', 'bob'],
      ]) {
        for (const method of ['POST', 'DELETE']) {
          const r = await t.call(method, `${V1}/chat/${token}/read`, { as: as(who), body: method === 'POST' ? { lastReadMessage: null } : undefined });
          assert.deepEqual([r.status, r.data?.error], [404, 'room'], `${method} ${token} ${who}: ${r.text}`);
        }
      }
    });

    it('GET /room costs the same number of queries with 1 or 60 rooms with messages and unread counts', async () => {
      await createUser(t.p, 'dana');
      const list = () => t.call('GET', `${V4}/room`, { as: as('dana') });
      const mk = async (i: number) => {
        const r = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: `q${i}` });
        await seedUser(t.p, r.token, 'dana');
        await t.call('POST', `${V1}/chat/${r.token}`, { as: as('alice'), body: { message: `hello ${i} @dana` } });
        return r;
      };
      // A write before each count: no cached answer may be reused (as in conversations-get).
      const write = () => t.call('POST', `${V1}/chat/${room.token}`, { as: as('alice'), body: { message: 'elsewhere' } });
      const cold = async () => {
        await write();
        await list();
        // Again: a first login writes lastLogin and the automatic online status, which the
        // PostgreSQL read cache then reads once more (docs/architecture.md "Read cache").
        await list();
        await write();
        return countQueries(t.p, list);
      };
      await mk(0);
      const one = await cold();
      for (let i = 1; i < 60; i++) await mk(i);
      const many = await cold();
      const r = await list();
      assert.equal(r.data.length, 60);
      assert.ok(r.data.every((c: any) => c.unreadMessages === 1 && c.unreadMentionDirect === true && c.lastMessage.message.startsWith('hello')));
      assert.equal(many, one);
    });
  });
}
