/**
 * Shared objects (docs/reference/chat.md#endpoints, docs/reference/chat.md#shared-objects): POST /chat/{token}/share (the object Talk
 * builds, its checks, guests, refusals), GET /chat/{token}/share (one kind, newest first, keyed by
 * id, paged by lastKnownMessageId), GET /chat/{token}/share/overview (every kind), and what takes
 * an item out of the lists: deleting its message (a poll goes with it), clearing the history,
 * expiry. JSON and XML; the same on SQLite and PostgreSQL.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects } from './helpers/parley.js';
import { createRoom, joinGuest, NO_THROTTLE, seedUser, setRoom, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';
const GEO = { type: 'geo-location', id: 'geo:52.5450511,13.3741463', name: 'Berlin office', latitude: '52.5450511', longitude: '13.3741463' };

for (const dialect of dialects()) {
  describe(`shared objects in chat [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE });
    let room: any;
    let pub: any;
    before(async () => {
      for (const u of ['alice', 'bob', 'carol', 'dave']) await createUser(t.p, u, { displayName: u.toUpperCase() });
      room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Places' });
      await seedUser(t.p, room.token, 'bob');
      await seedUser(t.p, room.token, 'carol');
      pub = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Open' });
    });

    const share = (who: any, body: Record<string, unknown>, token = room.token, opts: Record<string, unknown> = {}) =>
      t.call('POST', `${V1}/chat/${token}/share`, { as: typeof who === 'string' ? as(who) : who, body, ...opts });
    const geo = (who: any, extra: Record<string, unknown> = {}, token = room.token) =>
      share(who, { objectType: 'geo-location', objectId: GEO.id, metaData: JSON.stringify(GEO), ...extra }, token);
    const list = (who: string, query: Record<string, string | number>, token = room.token) =>
      t.call('GET', `${V1}/chat/${token}/share`, { as: as(who), query });
    const overview = (who: string, query: Record<string, string | number> = {}, token = room.token) =>
      t.call('GET', `${V1}/chat/${token}/share/overview`, { as: as(who), query });
    const messageCount = async (token: string) => (await t.history(token, 'alice', 200)).length;

    it('201: the object as Talk builds it, shown as a comment {object}; lastMessage, unread and the author marker move', async () => {
      const r = await geo('bob', { referenceId: 'ref-1' });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.headers.get('x-chat-last-given'), null, 'one message, as a post answers: no page offset');
      assert.match(r.headers.get('x-chat-last-common-read') ?? '', /^\d+$/);
      const m = r.data;
      assert.equal(m.actorType, 'users');
      assert.equal(m.actorId, 'bob');
      assert.equal(m.actorDisplayName, 'BOB');
      assert.equal(m.messageType, 'comment');
      assert.equal(m.systemMessage, '');
      assert.equal(m.message, '{object}');
      assert.equal(m.referenceId, 'ref-1');
      assert.equal(m.isReplyable, true);
      assert.deepEqual(m.messageParameters.actor, { type: 'user', id: 'bob', name: 'BOB', 'mention-id': 'bob' });
      const { 'icon-url': icon, ...object } = m.messageParameters.object;
      assert.deepEqual(object, GEO);
      assert.match(icon, new RegExp(`/ocs/v2\\.php/apps/spreed/api/v1/room/${room.token}/avatar\\?v=`));
      const alice = await t.call('GET', `/apps/spreed/api/v4/room/${room.token}`, { as: as('alice') });
      assert.equal(alice.data.lastMessage.id, m.id);
      assert.equal(alice.data.lastMessage.message, '{object}');
      assert.equal(alice.data.unreadMessages, 1, 'a shared object counts as unread chat');
      const bob = await t.call('GET', `/apps/spreed/api/v4/room/${room.token}`, { as: as('bob') });
      assert.equal(bob.data.lastReadMessage, m.id, "the author's read marker moved");
      assert.equal(bob.data.unreadMessages, 0);
      // The history shows it the same way.
      assert.deepEqual((await t.history(room, 'carol'))[0], m);
    });

    it('the actor is shown with the user’s current name (the id when they have none)', async () => {
      await createUser(t.p, 'erin');
      await seedUser(t.p, room.token, 'erin');
      const r = await geo('erin');
      assert.equal(r.status, 201, r.text);
      assert.equal(r.data.actorDisplayName, 'erin');
      assert.deepEqual(r.data.messageParameters.actor, { type: 'user', id: 'erin', name: 'erin', 'mention-id': 'erin' });
      await t.services.db.kysely.updateTable('users').set({ display_name: 'Erin E.' }).where('id', '=', 'erin').execute();
      const shown = (await t.history(room, 'alice')).find((m) => m.id === r.data.id);
      assert.equal(shown.messageParameters.actor.name, 'Erin E.');
    });

    it('metaData type and id are the server’s; bad JSON or a non-object is no metadata', async () => {
      const r = await share('alice', { objectType: 'highlight', objectId: 'h1', metaData: JSON.stringify({ type: 'user', id: 'x', name: 'Note' }) });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.data.messageParameters.object.type, 'highlight');
      assert.equal(r.data.messageParameters.object.id, 'h1');
      // Without a name the object is invalid: bad JSON and arrays give no name.
      for (const metaData of ['{not json', '["a"]', '']) {
        const bad = await share('alice', { objectType: 'highlight', objectId: 'h2', metaData });
        assert.equal(bad.status, 400, metaData);
        assert.equal(bad.data.error, 'object');
      }
    });

    it('400 object: unknown type, missing required key, a value not a string, a geo id that is no geo URI; nothing stored', async () => {
      const before = await messageCount(room.token);
      const cases: Array<Record<string, unknown>> = [
        { objectType: 'no-such-type', objectId: '1', metaData: JSON.stringify({ name: 'x' }) },
        { objectType: 'deck-card', objectId: '1', metaData: JSON.stringify({ name: 'Card', boardname: 'B' }) },
        { objectType: 'geo-location', objectId: GEO.id, metaData: JSON.stringify({ ...GEO, latitude: 52.5 }) },
        { objectType: 'geo-location', objectId: 'somewhere', metaData: JSON.stringify({ ...GEO, id: 'somewhere' }) },
        { objectType: 'geo-location', objectId: 'geo:123.4,13.3', metaData: JSON.stringify(GEO) },
        // Names of Object's own properties are no object types either.
        ...['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'].map((objectType) => ({
          objectType,
          objectId: '1',
          metaData: JSON.stringify({ name: 'x' }),
        })),
      ];
      for (const body of cases) {
        const r = await share('alice', body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.data.error, 'object');
      }
      assert.equal(await messageCount(room.token), before);
    });

    it('400 link: a link that is not on this server; one that is passes', async () => {
      const card = (link: string) => ({
        objectType: 'deck-card',
        objectId: '7',
        metaData: JSON.stringify({ name: 'Card', boardname: 'Board', stackname: 'To do', link }),
      });
      const away = await share('alice', card('https://elsewhere.example/apps/deck/#/board/1/card/7'));
      assert.equal(away.status, 400);
      assert.equal(away.data.error, 'link');
      const home = await share('alice', card(`${t.services.settings.baseUrl}/apps/deck/#/board/1/card/7`));
      assert.equal(home.status, 201, home.text);
      assert.equal(home.data.messageParameters.object.stackname, 'To do');
    });

    it('400 for bad parameters (missing, wrong type, NUL, too long), with the failing name', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ objectId: '1', metaData: '{}' }, 'object'],
        [{ objectType: 'highlight', metaData: '{}' }, 'object'],
        [{ objectType: ['highlight'], objectId: '1' }, 'object'],
        [{ objectType: 'highlight', objectId: 'a\u0000b', metaData: '{"name":"x"}' }, 'object'],
        [{ objectType: 'highlight', objectId: '1', metaData: '{"name":"x"}', referenceId: 'r'.repeat(1001) }, 'referenceId'],
        [{ objectType: 'highlight', objectId: '1', metaData: 'x'.repeat(32001) }, 'object'],
      ];
      for (const [body, error] of cases) {
        const r = await share('alice', body);
        assert.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(r.data.error, error);
      }
    });

    it('404 for non-participants and unknown tokens alike; 403 read-only and without chat permission; 412 lobby', async () => {
      const a = await geo('dave');
      const b = await geo('dave', {}, 'zzzzzzzz');
      assert.equal(a.status, 404);
      assert.equal(b.status, 404);
      assert.deepEqual(a.data, b.data);
      const ro = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'RO' });
      await seedUser(t.p, ro.token, 'bob');
      await setRoom(t.p, ro.token, { read_only: 1 });
      assert.equal((await geo('bob', {}, ro.token)).status, 403);
      await setRoom(t.p, ro.token, { read_only: 0, default_permissions: 1 | 2 });
      const perm = await geo('bob', {}, ro.token);
      assert.equal(perm.status, 403);
      assert.equal(perm.data.error, 'permission');
      await setRoom(t.p, ro.token, { default_permissions: 0, lobby_state: 1 });
      assert.equal((await geo('bob', {}, ro.token)).status, 412);
      assert.equal((await list('bob', { objectType: 'location' }, ro.token)).status, 412);
      assert.equal((await overview('bob', {}, ro.token)).status, 412);
      assert.equal((await geo('alice', {}, ro.token)).status, 201, 'moderators pass the lobby');
    });

    it('guests share in public conversations; actorDisplayName names them', async () => {
      const guest = await joinGuest(t.p, pub.token);
      const r = await geo(guest.caller, { actorDisplayName: 'Visitor' }, pub.token);
      assert.equal(r.status, 201, r.text);
      assert.equal(r.data.actorType, 'guests');
      assert.equal(r.data.actorDisplayName, 'Visitor');
      assert.equal(r.data.messageParameters.actor.type, 'guest');
      const items = await t.call('GET', `${V1}/chat/${pub.token}/share`, { as: guest.caller, query: { objectType: 'location' } });
      assert.equal(items.status, 200);
      assert.deepEqual(Object.keys(items.data), [String(r.data.id)]);
      assert.equal((await geo({}, {}, pub.token)).status, 404, 'without a session a guest is not a participant');
    });

    it('lists: one kind keyed by id, paged by lastKnownMessageId with X-Chat-Last-Given; [] when none; unknown kinds are empty', async () => {
      const r = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Lists' });
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push((await geo('alice', {}, r.token)).data.id);
      const other = (await share('alice', { objectType: 'highlight', objectId: 'h', metaData: '{"name":"H"}' }, r.token)).data.id;
      const poll = await t.call('POST', `${V1}/poll/${r.token}`, { as: as('alice'), body: { question: 'Q?', options: ['a', 'b'] } });
      assert.equal(poll.status, 201, poll.text);
      await t.say(r, 'alice', 'plain text is no shared item');

      const first = await list('alice', { objectType: 'location', limit: 2 }, r.token);
      assert.equal(first.status, 200);
      assert.deepEqual(
        Object.keys(first.data)
          .map(Number)
          .sort((a, b) => b - a),
        [ids[4], ids[3]],
      );
      assert.equal(first.data[ids[4]].id, ids[4]);
      // Newest first, as PHP writes the array (JSON key order; XML elements).
      assert.deepEqual(
        [...first.text.matchAll(/"(\d+)":\{"id":/g)].map((m) => Number(m[1])),
        [ids[4], ids[3]],
        first.text,
      );
      const xml = await t.call('GET', `${V1}/chat/${r.token}/share`, { as: as('alice'), query: { objectType: 'location', limit: 2 }, format: 'xml' });
      assert.deepEqual(
        [...xml.text.matchAll(/^ {3}<id>(\d+)<\/id>$/gm)].map((m) => Number(m[1])),
        [ids[4], ids[3]],
        xml.text,
      );
      assert.equal(first.headers.get('x-chat-last-given'), String(ids[3]));
      const next = await list('alice', { objectType: 'location', limit: 2, lastKnownMessageId: ids[3] }, r.token);
      assert.deepEqual(
        Object.keys(next.data)
          .map(Number)
          .sort((a, b) => b - a),
        [ids[2], ids[1]],
      );
      const last = await list('alice', { objectType: 'location', limit: 200, lastKnownMessageId: ids[1] }, r.token);
      assert.deepEqual(Object.keys(last.data).map(Number), [ids[0]]);
      const none = await list('alice', { objectType: 'location', lastKnownMessageId: ids[0] }, r.token);
      assert.deepEqual(none.data, []);
      assert.equal(none.headers.get('x-chat-last-given'), null);
      assert.deepEqual(Object.keys((await list('alice', { objectType: 'other' }, r.token)).data), [String(other)]);
      const polls = (await list('alice', { objectType: 'poll' }, r.token)).data;
      assert.equal(Object.values<any>(polls)[0].messageParameters.object.type, 'talk-poll');
      assert.deepEqual((await list('alice', { objectType: 'no-such-kind' }, r.token)).data, []);
      // Talk clamps the limit instead of refusing it (docs/reference/chat.md#common-rules).
      assert.equal(Object.keys((await list('alice', { objectType: 'location', limit: 0 }, r.token)).data).length, 1);
      assert.equal(Object.keys((await list('alice', { objectType: 'location', limit: 10_000 }, r.token)).data).length, 5);

      const o = await overview('alice', { limit: 3 }, r.token);
      assert.equal(o.status, 200);
      assert.deepEqual(Object.keys(o.data), ['audio', 'deckcard', 'file', 'location', 'media', 'other', 'pinned', 'poll', 'recording', 'voice']);
      assert.deepEqual(
        o.data.location.map((m: any) => m.id),
        [ids[4], ids[3], ids[2]],
      );
      assert.deepEqual(
        o.data.other.map((m: any) => m.id),
        [other],
      );
      assert.equal(o.data.poll.length, 1);
      assert.deepEqual(o.data.file, []);
    });

    it('400 for bad list parameters; 404 for non-participants', async () => {
      assert.equal((await list('alice', { objectType: 'location', limit: 'many' })).status, 400);
      assert.equal((await list('alice', { objectType: 'location', lastKnownMessageId: 'x' })).data.error, 'lastKnownMessageId');
      assert.equal((await list('alice', {})).data.error, 'objectType');
      assert.equal((await overview('alice', { limit: 'x' })).data.error, 'limit');
      assert.equal((await list('dave', { objectType: 'location' })).status, 404);
      assert.equal((await overview('dave')).status, 404);
    });

    it('deleting a shared object: message_deleted, gone from the lists; a deleted poll goes with its votes', async () => {
      const r = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Deletions' });
      await seedUser(t.p, r.token, 'bob');
      const shared = (await geo('bob', {}, r.token)).data.id;
      // Not the author, not a moderator: 403; the author may.
      await seedUser(t.p, r.token, 'carol');
      assert.equal((await t.call('DELETE', `${V1}/chat/${r.token}/${shared}`, { as: as('carol') })).status, 403);
      const del = await t.call('DELETE', `${V1}/chat/${r.token}/${shared}`, { as: as('bob') });
      assert.equal(del.status, 200, del.text);
      assert.equal(del.data.systemMessage, 'message_deleted');
      assert.equal(del.data.parent.id, shared);
      assert.equal(del.data.parent.messageType, 'comment_deleted');
      assert.deepEqual((await list('alice', { objectType: 'location' }, r.token)).data, []);
      // Shared objects other than files cannot be edited (docs/reference/chat.md#deleting-and-editing Edit): 405.
      const again = (await geo('bob', {}, r.token)).data.id;
      const edit = await t.call('PUT', `${V1}/chat/${r.token}/${again}`, { as: as('bob'), body: { message: 'x' } });
      assert.equal(edit.status, 405);

      const newPoll = async (question: string) =>
        (await t.call('POST', `${V1}/poll/${r.token}`, { as: as('bob'), body: { question, options: ['y', 'n'] } })).data;
      const kept = await newPoll('Kept?');
      const poll = await newPoll('Go?');
      assert.equal((await t.call('POST', `${V1}/poll/${r.token}/${poll.id}`, { as: as('alice'), body: { optionIds: [0] } })).status, 200);
      for (const p of [kept, poll]) assert.equal((await t.call('DELETE', `${V1}/poll/${r.token}/${p.id}`, { as: as('bob') })).status, 200);
      const closedPolls = async () =>
        (await t.call('GET', `${V1}/chat/${r.token}?lookIntoFuture=0&limit=200`, { as: as('alice') })).data
          .filter((m: any) => m.systemMessage === 'poll_closed')
          .map((m: any) => m.messageParameters.poll.name);
      assert.deepEqual((await closedPolls()).sort(), ['Go?', 'Kept?']);
      const pollMessage = Object.entries<any>((await list('alice', { objectType: 'poll' }, r.token)).data).find(
        ([, m]) => m.messageParameters.object.id === String(poll.id),
      )![0];
      const lastMessage = async () => (await t.call('GET', `${V4}/room/${r.token}`, { as: as('alice') })).data.lastMessage;
      assert.equal((await lastMessage()).messageParameters.poll.name, 'Go?');
      // A moderator may delete another's poll; its poll_closed message goes with it (docs/reference/chat.md#deleting-and-editing Delete).
      assert.equal((await t.call('DELETE', `${V1}/chat/${r.token}/${pollMessage}`, { as: as('alice') })).status, 200);
      assert.equal((await t.call('GET', `${V1}/poll/${r.token}/${poll.id}`, { as: as('alice') })).status, 404);
      assert.deepEqual(
        Object.values<any>((await list('alice', { objectType: 'poll' }, r.token)).data).map((m) => m.messageParameters.object.name),
        ['Kept?'],
      );
      assert.deepEqual(await closedPolls(), ['Kept?']);
      // It was the last message: the conversation no longer shows it (Talk: a last message gone is []).
      assert.deepEqual(await lastMessage(), []);
      const votes = await t.p.services.db.kysely.selectFrom('poll_votes').select('id').where('poll_id', '=', poll.id).execute();
      assert.equal(votes.length, 0);
    });

    it('a share naming somebody else’s poll: deleting it leaves the poll, unless its author or a moderator deletes it', async () => {
      const r = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Borrowed polls' });
      for (const u of ['bob', 'carol']) await seedUser(t.p, r.token, u);
      const poll = (await t.call('POST', `${V1}/poll/${r.token}`, { as: as('bob'), body: { question: 'Mine?', options: ['y', 'n'] } })).data;
      assert.equal((await t.call('DELETE', `${V1}/poll/${r.token}/${poll.id}`, { as: as('bob') })).status, 200, 'closed');
      const borrowed = async (who: string) => {
        const m = await share(who, { objectType: 'talk-poll', objectId: String(poll.id), metaData: JSON.stringify({ name: 'Mine?' }) }, r.token);
        assert.equal(m.status, 201, m.text);
        return m.data.id;
      };
      const pollClosed = async () =>
        (await t.history(r.token, 'alice', 200)).filter((m: any) => m.systemMessage === 'poll_closed' && m.messageType !== 'comment_deleted').length;
      // carol (neither the poll's author nor a moderator) deletes her own share: the poll stays.
      const byCarol = await t.call('DELETE', `${V1}/chat/${r.token}/${await borrowed('carol')}`, { as: as('carol') });
      assert.equal(byCarol.status, 200, byCarol.text);
      assert.equal((await t.call('GET', `${V1}/poll/${r.token}/${poll.id}`, { as: as('bob') })).status, 200);
      assert.equal(await pollClosed(), 1);
      // The poll's author deleting a share of it removes it, as a moderator would.
      assert.equal((await t.call('DELETE', `${V1}/chat/${r.token}/${await borrowed('bob')}`, { as: as('bob') })).status, 200);
      assert.equal((await t.call('GET', `${V1}/poll/${r.token}/${poll.id}`, { as: as('bob') })).status, 404);
      assert.equal(await pollClosed(), 0);
    });

    it('clearing the history empties the lists and removes the polls', async () => {
      const r = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Cleared' });
      await geo('alice', {}, r.token);
      const poll = (await t.call('POST', `${V1}/poll/${r.token}`, { as: as('alice'), body: { question: 'Q', options: ['a', 'b'] } })).data;
      assert.equal((await t.call('DELETE', `${V1}/chat/${r.token}`, { as: as('alice') })).status, 200);
      const o = (await overview('alice', {}, r.token)).data;
      assert.ok(
        Object.values<any[]>(o).every((l) => l.length === 0),
        JSON.stringify(o),
      );
      assert.equal((await t.call('GET', `${V1}/poll/${r.token}/${poll.id}`, { as: as('alice') })).status, 404);
      const rows = await t.p.services.db.kysely
        .selectFrom('chat_shared_items')
        .select('message_id')
        .where('room_id', '=', (await roomId(r.token)) as number)
        .execute();
      assert.equal(rows.length, 0);
    });

    it('expired shares leave the lists, and the job removes their items', async () => {
      const r = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Expiring' });
      const keep = (await geo('alice', {}, r.token)).data.id;
      await setRoom(t.p, r.token, { message_expiration: 1 });
      const gone = (await geo('alice', {}, r.token)).data.id;
      assert.ok(gone > keep);
      await new Promise((resolve) => setTimeout(resolve, 2100));
      assert.deepEqual(Object.keys((await list('alice', { objectType: 'location' }, r.token)).data).map(Number), [keep]);
      assert.deepEqual(
        (await overview('alice', {}, r.token)).data.location.map((m: any) => m.id),
        [keep],
      );
      const deleted = await t.services.repos.chatMessages.deleteExpired(Math.floor(Date.now() / 1000));
      assert.ok(deleted >= 1);
      const rows = await t.p.services.db.kysely
        .selectFrom('chat_shared_items')
        .select('message_id')
        .where('room_id', '=', (await roomId(r.token)) as number)
        .execute();
      assert.deepEqual(
        rows.map((x) => Number(x.message_id)),
        [keep],
      );
    });

    it('XML: the message of a share and a list keyed by id (numeric keys are <element>)', async () => {
      const r = await share('alice', { objectType: 'highlight', objectId: 'x1', metaData: '{"name":"In XML"}' }, room.token, { format: 'xml' });
      assert.equal(r.status, 201, r.text);
      assert.match(r.text, /<message>\{object\}<\/message>/);
      assert.match(r.text, /<name>In XML<\/name>/);
      const l = await t.call('GET', `${V1}/chat/${room.token}/share`, { as: as('alice'), query: { objectType: 'other' }, format: 'xml' });
      assert.equal(l.status, 200);
      assert.match(l.text, /<data>\s*<element>\s*<id>\d+<\/id>/);
    });

    it('the capabilities advertise sharing and the lists', async () => {
      const caps = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      const features: string[] = caps.data.capabilities.spreed.features;
      for (const f of ['rich-object-sharing', 'geo-location-sharing', 'rich-object-list-media', 'rich-object-delete']) assert.ok(features.includes(f), f);
    });

    async function roomId(token: string): Promise<number | undefined> {
      const row = await t.p.services.db.kysely.selectFrom('rooms').select('id').where('token', '=', token).executeTakeFirst();
      return row ? Number(row.id) : undefined;
    }
  });
}
