/**
 * Pinned messages (docs/reference/chat.md#pinned-messages, docs/reference/chat.md#the-message-object `metaData`, docs/reference/chat.md#system-messages `message_pinned` /
 * `message_unpinned`; docs/reference/conversations.md#the-conversation-record `lastPinnedId`, `hiddenPinnedId`; Talk's
 * chat-1/pinned-messages scenarios): pin, unpin and hide for oneself — every status, bad
 * input, XML — the record's fields, the `pinned` shared items, a pin's end (capped by the
 * message expiration, ended by the job), and what deleting, expiring and clearing do to pins.
 * The same on SQLite and PostgreSQL.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects } from './helpers/parley.js';
import { NO_THROTTLE, ParticipantType, RoomType, useParley, type RoomFixture } from './helpers/fixtures.js';
import { setRoom } from './helpers/rooms.js';
import { jobs, runJobIfDue } from '../src/jobs/index.js';
import { nowSeconds } from '../src/domain/time.js';

const V1 = '/apps/spreed/api/v1';
const V4 = '/apps/spreed/api/v4';

for (const dialect of dialects()) {
  describe(`pinned messages [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob', 'carol', 'dave'] });
    let room: RoomFixture;

    before(async () => {
      room = await t.newRoom('alice', { members: { bob: ParticipantType.MODERATOR, carol: ParticipantType.USER } });
    });

    const caller = (who: any) => (typeof who === 'string' ? as(who) : who);
    const pin = (who: any, id: number | string, body: Record<string, unknown> = {}, token = room.token, opts: Record<string, unknown> = {}) =>
      t.call('POST', `${V1}/chat/${token}/${id}/pin`, { as: caller(who), body, ...opts });
    const unpin = (who: any, id: number | string, token = room.token, opts: Record<string, unknown> = {}) =>
      t.call('DELETE', `${V1}/chat/${token}/${id}/pin`, { as: caller(who), ...opts });
    const hide = (who: any, id: number | string, token = room.token) => t.call('DELETE', `${V1}/chat/${token}/${id}/pin/self`, { as: caller(who) });
    const record = async (who: any, token = room.token) => {
      const r = await t.call('GET', `${V4}/room/${token}`, { as: caller(who) });
      assert.equal(r.status, 200, r.text);
      return r.data;
    };
    const pins = async (who: any, token = room.token) => [(await record(who, token)).lastPinnedId, (await record(who, token)).hiddenPinnedId];
    const message = async (who: string, id: number, token = room.token) => (await t.history(token, who, 200)).find((m) => m.id === id);
    const runJob = async (name: string) => {
      const out = await runJobIfDue(
        t.p.services,
        jobs.find((j) => j.name === name)!,
        true,
      );
      assert.equal(out.status, 'ok', out.error);
      return out.summary;
    };

    it('200: a moderator pins; the answer is message_pinned with the message as parent and its metaData; lastPinnedId follows', async () => {
      const id = await t.say(room, 'carol', 'Pin me');
      const before = nowSeconds();
      const r = await pin('bob', id);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.systemMessage, 'message_pinned');
      assert.equal(r.data.message, 'You pinned a message');
      assert.equal(r.data.actorId, 'bob');
      assert.equal(r.data.parent.id, id);
      assert.equal(r.data.parent.message, 'Pin me');
      const meta = r.data.parent.metaData;
      assert.deepEqual(Object.keys(meta), ['pinnedActorType', 'pinnedActorId', 'pinnedActorDisplayName', 'pinnedAt'], 'no pinnedUntil without an end');
      assert.deepEqual([meta.pinnedActorType, meta.pinnedActorId, meta.pinnedActorDisplayName], ['users', 'bob', 'bob']);
      assert.ok(meta.pinnedAt >= before && meta.pinnedAt <= nowSeconds());
      assert.ok(r.headers.get('x-chat-last-common-read') !== null, 'the chat header comes with it');
      // Everyone's record points at it; the pin is the conversation's last message.
      for (const who of ['alice', 'bob', 'carol']) assert.deepEqual(await pins(who), [id, 0], who);
      const carolView = await record('carol');
      assert.equal(carolView.lastMessage.systemMessage, 'message_pinned');
      assert.equal(carolView.lastMessage.message, '{actor} pinned a message');
      // The message itself carries the pin in history.
      assert.deepEqual((await message('carol', id)).metaData, meta);
      const plain = await t.say(room, 'carol', 'Not pinned');
      assert.equal((await message('carol', plain)).metaData, undefined, 'no metaData on a message never pinned');
      assert.equal((await unpin('bob', id)).status, 200);
    });

    it('200 null: pinning a pinned message posts nothing; unpinning one that is not pinned posts nothing', async () => {
      const id = await t.say(room, 'carol', 'Twice');
      assert.equal((await pin('alice', id)).status, 200);
      const count = (await t.history(room, 'alice', 200)).length;
      const again = await pin('bob', id);
      assert.equal(again.status, 200);
      assert.equal(again.data, null);
      assert.equal((await t.history(room, 'alice', 200)).length, count, 'no second message_pinned');
      assert.equal((await message('alice', id)).metaData.pinnedActorId, 'alice', 'the first pin stays');
      const off = await unpin('bob', id);
      assert.equal(off.status, 200);
      assert.equal(off.data.systemMessage, 'message_unpinned');
      const none = await unpin('bob', id);
      assert.equal(none.status, 200);
      assert.equal(none.data, null);
      assert.equal((await t.history(room, 'alice', 200)).length, count + 1, 'one message_unpinned');
    });

    it('unpin: message_unpinned is silent and leaves lastMessage; lastPinnedId falls back to the message pinned last that is still pinned', async () => {
      const [a, b, c] = [await t.say(room, 'carol', 'A'), await t.say(room, 'carol', 'B'), await t.say(room, 'carol', 'C')];
      for (const id of [b, c, a]) assert.equal((await pin('bob', id)).status, 200);
      assert.deepEqual(await pins('carol'), [a, 0], 'the one pinned last, not the newest message');
      const last = (await record('carol')).lastMessage;
      const r = await unpin('alice', a);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.systemMessage, 'message_unpinned');
      assert.equal(r.data.message, 'You unpinned a message');
      assert.equal(r.data.silent, true);
      assert.equal(r.data.parent.id, a);
      assert.equal(r.data.parent.metaData, undefined, 'the parent is no longer pinned');
      assert.deepEqual((await record('carol')).lastMessage, last, 'an unpin does not move lastMessage');
      assert.deepEqual(await pins('carol'), [c, 0]);
      // Unpinning one that is not the last pin leaves lastPinnedId.
      assert.equal((await unpin('alice', b)).status, 200);
      assert.deepEqual(await pins('carol'), [c, 0]);
      assert.equal((await unpin('alice', c)).status, 200);
      assert.deepEqual(await pins('carol'), [0, 0]);
    });

    it('hide for oneself: 200 null, hiddenPinnedId for the caller only; pinning it again shows it to everyone again', async () => {
      const id = await t.say(room, 'alice', 'Hide me');
      assert.equal((await pin('bob', id)).status, 200);
      const h = await hide('carol', id);
      assert.equal(h.status, 200, h.text);
      assert.equal(h.data, null);
      assert.deepEqual(await pins('carol'), [id, id]);
      assert.deepEqual(await pins('alice'), [id, 0]);
      // Unpinning keeps it hidden (Talk's scenario); pinning it again resets it.
      assert.equal((await unpin('bob', id)).status, 200);
      assert.deepEqual(await pins('carol'), [0, id]);
      assert.equal((await pin('bob', id)).status, 200);
      assert.deepEqual(await pins('carol'), [id, 0]);
      assert.equal((await unpin('bob', id)).status, 200);
    });

    it('guests: a guest moderator pins; a guest hides; a plain guest cannot pin (403)', async () => {
      const open = await t.newRoom('alice', { type: RoomType.PUBLIC, members: ['carol'] });
      const id = await t.say(open, 'carol', 'Public pin');
      const mod = await t.newGuest(open, ParticipantType.GUEST_MODERATOR);
      const guest = await t.newGuest(open);
      assert.equal((await pin(guest.caller, id, {}, open.token)).status, 403);
      const r = await pin(mod.caller, id, {}, open.token);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.parent.metaData.pinnedActorType, 'guests');
      assert.equal((await hide(guest.caller, id, open.token)).status, 200);
      assert.deepEqual(await pins(guest.caller, open.token), [id, id]);
      assert.equal((await unpin(guest.caller, id, open.token)).status, 403);
      assert.equal((await unpin(mod.caller, id, open.token)).status, 200);
    });

    it('refusals in order: 404 not a participant, 403 not a moderator, 404 message, 400 message, 400 until; each changes nothing', async () => {
      const other = await t.newRoom('dave');
      const foreign = await t.say(other, 'dave', 'Elsewhere');
      const id = await t.say(room, 'carol', 'Refused');
      const system = (await pin('bob', id)).data.id as number;
      assert.equal((await unpin('bob', id)).status, 200);
      const cases: Array<[string, Promise<any>, number, unknown]> = [
        ['not a participant', pin('dave', id), 404, undefined],
        ['unknown token', pin('bob', id, {}, 'nosuchtoken'), 404, undefined],
        ['not a moderator', pin('carol', 999999999), 403, undefined],
        ['unknown message', pin('bob', 999999999), 404, 'message'],
        ['message 0', pin('bob', 0), 404, 'message'],
        ['a message of another conversation', pin('bob', foreign), 404, 'message'],
        ['a system message', pin('bob', system), 400, 'message'],
        ['an end in the past', pin('bob', id, { pinUntil: nowSeconds() - 60 }), 400, 'until'],
        ['a negative end', pin('bob', id, { pinUntil: -1 }), 400, 'until'],
        ['an end that is not a number', pin('bob', id, { pinUntil: 'soon' }), 400, 'until'],
        ['an end past the safe integers', pin('bob', id, { pinUntil: 2 ** 60 }), 400, 'until'],
        ['a message id that is not a number', pin('bob', 'abc'), 400, 'message'],
        ['unpin: not a participant', unpin('dave', id), 404, undefined],
        ['unpin: not a moderator', unpin('carol', id), 403, undefined],
        ['unpin: unknown message', unpin('bob', 999999999), 404, 'message'],
        ['hide: not a participant', hide('dave', id), 404, undefined],
      ];
      for (const [what, pending, status, error] of cases) {
        const r = await pending;
        assert.equal(r.status, status, `${what}: ${r.text}`);
        if (error !== undefined) assert.equal(r.data.error, error, what);
        assert.notEqual(r.status, 500);
      }
      assert.equal((await message('alice', id)).metaData, undefined, 'nothing was pinned');
      const deleted = await t.say(room, 'carol', 'Deleted');
      assert.equal((await t.call('DELETE', `${V1}/chat/${room.token}/${deleted}`, { as: as('carol') })).status, 200);
      const d = await pin('bob', deleted);
      assert.equal(d.status, 400);
      assert.equal(d.data.error, 'message', 'a deleted message cannot be pinned');
    });

    it('pinUntil reads the same as form text and as a JSON number: the largest safe integer passes both ways, the next one neither', async () => {
      const id = await t.say(room, 'carol', 'Forever');
      const largest = String(Number.MAX_SAFE_INTEGER);
      for (const opts of [{ form: { pinUntil: largest } }, { body: { pinUntil: Number.MAX_SAFE_INTEGER } }]) {
        const r = await pin('bob', id, undefined, room.token, opts);
        assert.equal(r.status, 200, `${JSON.stringify(opts)}: ${r.text}`);
        assert.equal(r.data.parent.metaData.pinnedUntil, Number.MAX_SAFE_INTEGER);
        assert.equal((await unpin('bob', id)).status, 200);
      }
      for (const opts of [{ form: { pinUntil: '9007199254740992' } }, { body: { pinUntil: 9007199254740992 } }]) {
        const r = await pin('bob', id, undefined, room.token, opts);
        assert.deepEqual([r.status, r.data.error], [400, 'until'], JSON.stringify(opts));
      }
    });

    it('read-only conversations: moderators still pin (Talk checks no read-only state); the lobby holds back hiding and the record fields', async () => {
      const ro = await t.newRoom('alice', { members: ['carol'] });
      const id = await t.say(ro, 'carol', 'Before locking');
      await setRoom(t.p, ro.token, { read_only: 1 });
      assert.equal((await pin('alice', id, {}, ro.token)).status, 200);
      await setRoom(t.p, ro.token, { read_only: 0, lobby_state: 1 });
      assert.equal((await hide('carol', id, ro.token)).status, 412);
      const held = await record('carol', ro.token);
      assert.deepEqual([held.lastPinnedId, held.hiddenPinnedId], [0, 0], 'nothing of the chat leaks into the lobby');
      assert.deepEqual(await pins('alice', ro.token), [id, 0]);
    });

    it('pinUntil: kept as metaData.pinnedUntil, capped at the message expiration, and ended by the job as the system', async () => {
      const id = await t.say(room, 'carol', 'For a while');
      const until = nowSeconds() + 3600;
      const r = await pin('bob', id, { pinUntil: until });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.parent.metaData.pinnedUntil, until);
      assert.equal((await unpin('bob', id)).status, 200);

      const expiring = await t.newRoom('alice', { members: ['carol'] });
      assert.equal((await t.call('POST', `${V4}/room/${expiring.token}/message-expiration`, { as: as('alice'), body: { seconds: 600 } })).status, 200);
      const e = await t.say(expiring, 'carol', 'Expiring');
      const capped = await pin('alice', e, { pinUntil: nowSeconds() + 86400 }, expiring.token);
      assert.ok(Math.abs(capped.data.parent.metaData.pinnedUntil - (nowSeconds() + 600)) <= 2, 'capped at the expiration');
      const forever = await t.say(expiring, 'carol', 'Forever?');
      const noEnd = await pin('alice', forever, {}, expiring.token);
      assert.ok(Math.abs(noEnd.data.parent.metaData.pinnedUntil - (nowSeconds() + 600)) <= 2, 'no end becomes the expiration');

      // A pin ending in a second is ended by the job once that second has passed. (An end equal
      // to the current second is accepted too, as Talk does, but a test sending it races the
      // clock: the server's second may already be the next one.)
      const brief = await t.say(room, 'carol', 'Briefly');
      const older = await t.say(room, 'carol', 'Pinned before');
      assert.equal((await pin('bob', older)).status, 200);
      assert.equal((await pin('bob', brief, { pinUntil: nowSeconds() + 1 })).status, 200);
      assert.deepEqual(await pins('carol'), [brief, 0]);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      assert.equal(await runJob('pinned-messages'), '1 messages unpinned');
      assert.equal(await runJob('pinned-messages'), '0 messages unpinned', 'a second run finds it done');
      assert.equal((await message('carol', brief)).metaData, undefined);
      assert.deepEqual(await pins('carol'), [older, 0], 'the last pin falls back');
      const unpinned = (await t.history(room, 'carol', 5)).find((m) => m.systemMessage === 'message_unpinned');
      assert.deepEqual([unpinned.actorType, unpinned.actorId, unpinned.parent.id], ['guests', 'system', brief]);
      assert.equal((await unpin('bob', older)).status, 200);
    });

    it('the `pinned` shared items: the one pinned last first, X-Chat-Last-Given the lowest id, and a list in the overview', async () => {
      const shared = await t.newRoom('alice', { members: ['carol'] });
      const m1 = await t.say(shared, 'carol', 'Message 1');
      const m2 = await t.say(shared, 'carol', 'Message 2');
      assert.equal((await pin('alice', m2, {}, shared.token)).status, 200);
      assert.equal((await pin('alice', m1, {}, shared.token)).status, 200);
      const list = await t.call('GET', `${V1}/chat/${shared.token}/share`, { as: as('carol'), query: { objectType: 'pinned' } });
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        Object.values(list.data).map((m: any) => m.id),
        [m1, m2],
      );
      assert.equal(list.headers.get('x-chat-last-given'), String(m1));
      const older = await t.call('GET', `${V1}/chat/${shared.token}/share`, { as: as('carol'), query: { objectType: 'pinned', lastKnownMessageId: m2 } });
      assert.deepEqual(
        Object.values(older.data).map((m: any) => m.id),
        [m1],
      );
      const overview = await t.call('GET', `${V1}/chat/${shared.token}/share/overview`, { as: as('carol') });
      assert.equal(overview.status, 200);
      assert.deepEqual(Object.keys(overview.data), ['audio', 'deckcard', 'file', 'location', 'media', 'other', 'pinned', 'poll', 'recording', 'voice']);
      assert.deepEqual(
        overview.data.pinned.map((m: any) => m.id),
        [m1, m2],
      );
    });

    it('deleting a pinned message unpins it; expiring takes its pin along; clearing the history clears both fields', async () => {
      const gone = await t.newRoom('alice', { members: ['carol'] });
      const [a, b] = [await t.say(gone, 'carol', 'Stays'), await t.say(gone, 'carol', 'Goes')];
      assert.equal((await pin('alice', a, {}, gone.token)).status, 200);
      assert.equal((await pin('alice', b, {}, gone.token)).status, 200);
      assert.equal((await t.call('DELETE', `${V1}/chat/${gone.token}/${b}`, { as: as('carol') })).status, 200);
      assert.deepEqual(await pins('carol', gone.token), [a, 0]);
      assert.equal((await message('carol', b, gone.token)).metaData, undefined);

      // A pinned message past its expiration: the job deletes it and the last pin falls back.
      const c = await t.say(gone, 'carol', 'Expires');
      assert.equal((await pin('alice', c, {}, gone.token)).status, 200);
      await t.services.repos.chatMessages.update(c, { expires_at: nowSeconds() - 1 });
      await runJob('message-expiration');
      assert.deepEqual(await pins('carol', gone.token), [a, 0]);

      assert.equal((await hide('carol', a, gone.token)).status, 200);
      assert.deepEqual(await pins('carol', gone.token), [a, a]);
      const clear = await t.call('DELETE', `${V1}/chat/${gone.token}`, { as: as('alice') });
      assert.equal(clear.status, 200, clear.text);
      assert.deepEqual(await pins('carol', gone.token), [0, 0]);
    });

    it('XML: the pin answer and the null answers', async () => {
      const id = await t.say(room, 'carol', 'In XML');
      const r = await pin('bob', id, {}, room.token, { format: 'xml' });
      assert.equal(r.status, 200);
      assert.match(r.text, /<systemMessage>message_pinned<\/systemMessage>/);
      assert.match(r.text, /<pinnedActorId>bob<\/pinnedActorId>/);
      const again = await pin('bob', id, {}, room.token, { format: 'xml' });
      assert.equal(again.status, 200);
      assert.match(again.text, /<data\s*\/>|<data><\/data>/);
      assert.equal((await unpin('bob', id, room.token, { format: 'xml' })).status, 200);
    });

    it('the capability is advertised', async () => {
      const caps = await t.call('GET', '/cloud/capabilities', { as: as('carol') });
      assert.ok(caps.data.capabilities.spreed.features.includes('pinned-messages'));
    });
  });
}
