/**
 * Reactions (docs/reference/chat.md#reactions): add (201/200), remove, list with filter, every refusal,
 * the reaction rows and reaction_revoked in the chat, `reactions`/`reactionsSelf` on messages
 * and `reactions` on lastMessage, and two concurrent adds of one reaction storing one.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects } from './helpers/parley.js';
import { createRoom, NO_THROTTLE, seedUser, setRoom, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`chat reactions [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['dave'] });
    let room: any;
    before(async () => {
      await createUser(t.p, 'alice', { displayName: 'Alice A' });
      await createUser(t.p, 'bob', { displayName: 'Bob B' });
      room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Reacts' });
      await seedUser(t.p, room.token, 'bob');
    });

    const react = (method: string, token: string, id: number | string, who: string, reaction?: string, query = false) =>
      t.call(method, `${V1}/reaction/${token}/${id}`, {
        as: as(who),
        ...(reaction === undefined ? {} : query ? { query: { reaction } } : { body: { reaction } }),
      });

    it('201 on a new reaction, 200 when it already exists; the map as Talk sends it', async () => {
      const id = await t.say(room.token, 'alice', 'React to me');
      const a = await react('POST', room.token, id, 'bob', '👍');
      assert.equal(a.status, 201, a.text);
      assert.deepEqual(Object.keys(a.data), ['👍']);
      assert.equal(a.data['👍'][0].actorType, 'users');
      assert.equal(a.data['👍'][0].actorId, 'bob');
      assert.equal(a.data['👍'][0].actorDisplayName, 'Bob B');
      assert.ok(Math.abs(a.data['👍'][0].timestamp - Date.now() / 1000) < 5);
      const again = await react('POST', room.token, id, 'bob', '👍');
      assert.equal(again.status, 200);
      assert.equal(again.data['👍'].length, 1);
      assert.equal((await react('POST', room.token, id, 'alice', '👍')).status, 201);
      // Multi-code-point emoji are one emoji.
      assert.equal((await react('POST', room.token, id, 'alice', '👨‍👩‍👧')).status, 201);
      const list = await react('GET', room.token, id, 'alice');
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.data['👍'].map((x: any) => x.actorId),
        ['bob', 'alice'],
      );
      assert.equal(list.data['👨‍👩‍👧'].length, 1);
      const filtered = await react('GET', room.token, id, 'alice', '👨‍👩‍👧', true);
      assert.deepEqual(Object.keys(filtered.data), ['👨‍👩‍👧']);
    });

    it('messages carry reactions and the viewer’s reactionsSelf; lastMessage carries reactions', async () => {
      const id = await t.say(room.token, 'alice', 'Counted');
      await react('POST', room.token, id, 'bob', '🎉');
      await react('POST', room.token, id, 'alice', '🎉');
      await react('POST', room.token, id, 'alice', '❤️');
      const forAlice = (await t.history(room.token, 'alice')).find((m) => m.id === id);
      assert.deepEqual(forAlice.reactions, { '❤️': 1, '🎉': 2 });
      assert.deepEqual([...forAlice.reactionsSelf].sort(), ['❤️', '🎉'].sort());
      const forBob = (await t.history(room.token, 'bob')).find((m) => m.id === id);
      assert.deepEqual(forBob.reactionsSelf, ['🎉']);
      // Reactions do not move lastMessage; it shows the reacted message with its counts.
      const rec = await t.call('GET', `${V4}/room/${room.token}`, { as: as('bob') });
      assert.equal(rec.data.lastMessage.id, id);
      assert.deepEqual(rec.data.lastMessage.reactions, { '❤️': 1, '🎉': 2 });
      // The reaction rows are in the chat as Talk stores them: system `reaction`, parent = the message.
      const rows = (await t.history(room.token, 'alice')).filter((m) => m.systemMessage === 'reaction' && m.parent?.id === id);
      assert.equal(rows.length, 3);
      assert.ok(rows.some((m) => m.message === '❤️' && m.actorId === 'alice' && m.messageType === 'system' && m.isReplyable === false));
      // A viewer without reactions on a message has no reactionsSelf.
      const other = await t.say(room.token, 'alice', 'No reactions from bob');
      await react('POST', room.token, other, 'alice', '👀');
      assert.equal((await t.history(room.token, 'bob')).find((m) => m.id === other).reactionsSelf, undefined);
    });

    it('DELETE: 200 with the map after removal, reaction_revoked posted, then 404', async () => {
      const id = await t.say(room.token, 'alice', 'Undo');
      await react('POST', room.token, id, 'bob', '🙂');
      await react('POST', room.token, id, 'alice', '🙂');
      const d = await react('DELETE', room.token, id, 'bob', '🙂');
      assert.equal(d.status, 200, d.text);
      assert.deepEqual(
        d.data['🙂'].map((x: any) => x.actorId),
        ['alice'],
      );
      const msgs = await t.history(room.token, 'alice');
      assert.deepEqual(msgs.find((m) => m.id === id).reactions, { '🙂': 1 });
      const revoked = msgs.find((m) => m.systemMessage === 'reaction_revoked');
      assert.ok(revoked, 'reaction_revoked posted');
      assert.equal(revoked.parent.id, id);
      assert.equal(revoked.actorId, 'bob');
      assert.ok(msgs.some((m) => m.systemMessage === 'reaction_deleted' && m.parent?.id === id));
      assert.equal((await react('DELETE', room.token, id, 'bob', '🙂')).status, 404);
      await react('DELETE', room.token, id, 'alice', '🙂');
      const empty = await react('GET', room.token, id, 'alice');
      assert.equal(empty.status, 200);
      assert.deepEqual(empty.data, {});
      assert.match(empty.text, /"data":\{\}/);
      // reaction_revoked does not move lastMessage (skip-update, docs/reference/chat.md#system-messages).
      const rec = await t.call('GET', `${V4}/room/${room.token}`, { as: as('alice') });
      assert.notEqual(rec.data.lastMessage.systemMessage, 'reaction_revoked');
    });

    it('400 for anything but one emoji, a missing reaction and non-reactable messages', async () => {
      const id = await t.say(room.token, 'alice', 'Strict');
      for (const bad of ['a', '👍👍', '1', 'thumbs', '👍 ']) {
        const r = await react('POST', room.token, id, 'bob', bad);
        assert.equal(r.status, 400, bad);
        assert.equal(r.data.error, 'reaction');
      }
      const none = await react('POST', room.token, id, 'bob');
      assert.equal(none.status, 400);
      assert.equal(none.data.error, 'reaction');
      const nul = await react('POST', room.token, id, 'bob', '\u0000');
      assert.deepEqual([nul.status, nul.data.error], [400, 'reaction'], nul.text);
      for (const reaction of [['👍'], { e: '👍' }, '👍'.repeat(5000)]) {
        const r = await t.call('POST', `${V1}/reaction/${room.token}/${id}`, { as: as('bob'), body: { reaction } });
        assert.deepEqual([r.status, r.data.error], [400, 'reaction'], JSON.stringify(reaction).slice(0, 40));
      }
      const system = (await t.history(room.token, 'alice')).find((m) => m.systemMessage === 'conversation_created');
      const sys = await react('POST', room.token, system.id, 'bob', '👍');
      assert.equal(sys.status, 400);
      assert.equal(sys.data.error, 'message');
      assert.equal((await react('GET', room.token, system.id, 'bob')).status, 404);
      assert.equal((await react('DELETE', room.token, system.id, 'bob', '👍')).status, 404);
      const notAnId = await react('POST', room.token, 'abc', 'bob', '👍');
      assert.deepEqual([notAnId.status, notAnId.data.error], [400, 'message'], notAnId.text);
      assert.deepEqual((await react('GET', room.token, id, 'bob')).data, {});
    });

    it('404 for missing messages, other rooms’ messages and non-participants', async () => {
      const other = await createRoom(t.p, 'dave', { roomType: RoomType.GROUP, roomName: 'Elsewhere' });
      const foreign = await t.say(other.token, 'dave', 'Not yours');
      const id = await t.say(room.token, 'alice', 'Members only');
      const got: string[] = [];
      for (const [method, target, who, reaction] of [
        ['POST', foreign, 'bob', '👍'],
        ['GET', foreign, 'bob'],
        ['DELETE', foreign, 'bob', '👍'],
        ['POST', 99999999, 'bob', '👍'],
        ['GET', 99999999, 'bob'],
        ['DELETE', 99999999, 'bob', '👍'],
        ['POST', id, 'dave', '👍'],
        ['GET', id, 'dave'],
        ['DELETE', id, 'dave', '👍'],
      ] as Array<[string, number, string, string?]>) {
        const r = await react(method, room.token, target, who, reaction);
        got.push(`${method} ${target === id ? 'id' : target === foreign ? 'foreign' : target} ${who}: ${r.status} ${r.data?.error}`);
      }
      assert.deepEqual(got, [
        'POST foreign bob: 404 message',
        'GET foreign bob: 404 message',
        'DELETE foreign bob: 404 message',
        'POST 99999999 bob: 404 message',
        'GET 99999999 bob: 404 message',
        'DELETE 99999999 bob: 404 message',
        'POST id dave: 404 room',
        'GET id dave: 404 room',
        'DELETE id dave: 404 room',
      ]);
      assert.deepEqual((await react('GET', room.token, id, 'alice')).data, {});
      assert.deepEqual((await react('GET', other.token, foreign, 'dave')).data, {}, 'the message of the other room got nothing');
    });

    it('403 read-only, 412 lobby, 403 without chat permission; GET only needs the lobby', async () => {
      const r = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Locked' });
      await seedUser(t.p, r.token, 'bob');
      const id = await t.say(r.token, 'alice', 'Locked message');
      await setRoom(t.p, r.token, { read_only: 1 });
      const ro = await react('POST', r.token, id, 'bob', '👍');
      assert.equal(ro.status, 403);
      assert.equal(ro.data.error, 'readOnly');
      assert.equal((await react('GET', r.token, id, 'bob')).status, 200);
      await setRoom(t.p, r.token, { read_only: 0, lobby_state: 1, default_permissions: 1 | 2 });
      assert.equal((await react('POST', r.token, id, 'bob', '👍')).status, 412);
      assert.equal((await react('GET', r.token, id, 'bob')).status, 412);
      await setRoom(t.p, r.token, { lobby_state: 0 });
      const perm = await react('POST', r.token, id, 'bob', '👍');
      assert.equal(perm.status, 403);
      assert.equal(perm.data.error, 'permission');
      assert.equal((await react('DELETE', r.token, id, 'bob', '👍')).status, 403);
      assert.equal((await react('GET', r.token, id, 'bob')).status, 200);
      assert.deepEqual((await react('GET', r.token, id, 'alice')).data, {});
    });

    it('concurrent adds of one reaction store it once (unique index)', async () => {
      const id = await t.say(room.token, 'alice', 'Race');
      const rs = await Promise.all(Array.from({ length: 6 }, () => react('POST', room.token, id, 'bob', '🚀')));
      assert.deepEqual(rs.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 201]);
      const list = await react('GET', room.token, id, 'alice');
      assert.equal(list.data['🚀'].length, 1);
      assert.deepEqual((await t.history(room.token, 'alice')).find((m) => m.id === id).reactions, { '🚀': 1 });
    });

    it('capability reactions is advertised', async () => {
      const r = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      assert.ok(r.data.capabilities.spreed.features.includes('reactions'));
      assert.ok(!r.data.capabilities.spreed.features.includes('react-permission'));
    });
  });
}
