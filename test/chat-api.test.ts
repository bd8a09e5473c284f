/**
 * Chat API v1 (docs/reference/chat.md): send, history, long-poll, context, edit, delete, clear
 * history, mention autocomplete; every refusal in Talk's order; JSON, XML and v1.php.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, startParley, type Caller, type Parley } from './helpers/parley.js';
import { createRoom, joinGuest, NO_THROTTLE, roomRow, seedUser, setRoom } from './helpers/rooms.js';
import { RoomType } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`chat API [${dialect}]`, () => {
    let p: Parley;
    let group: any;
    let pub: any;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      await createUser(p, 'alice', { displayName: 'Alice A' });
      await createUser(p, 'bob', { displayName: 'Bob B' });
      await createUser(p, 'carol');
      await createUser(p, 'dave');
      group = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Team' });
      await seedUser(p, group.token, 'bob');
      await seedUser(p, group.token, 'carol');
      pub = await createRoom(p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Town hall' });
    });
    after(async () => p.close());

    const send = (token: string, who: Caller | string, body: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      call(p, 'POST', `${V1}/chat/${token}`, { as: typeof who === 'string' ? as(who) : who, body, ...extra });
    const get = (token: string, who: Caller | string, query: Record<string, string | number>, extra: Record<string, unknown> = {}) =>
      call(p, 'GET', `${V1}/chat/${token}`, { as: typeof who === 'string' ? as(who) : who, query, ...extra });

    describe('send', () => {
      it('201 with the message object as Talk sends it', async () => {
        const r = await send(group.token, 'alice', { message: '  Hello team  ', referenceId: 'ref-1' });
        assert.equal(r.status, 201, r.text);
        const m = r.data;
        assert.deepEqual(Object.keys(m).slice(0, 15), [
          'id',
          'token',
          'actorType',
          'actorId',
          'actorDisplayName',
          'timestamp',
          'message',
          'messageParameters',
          'systemMessage',
          'messageType',
          'isReplyable',
          'referenceId',
          'reactions',
          'expirationTimestamp',
          'markdown',
        ]);
        assert.equal(m.token, group.token);
        assert.equal(m.actorType, 'users');
        assert.equal(m.actorId, 'alice');
        assert.equal(m.actorDisplayName, 'Alice A');
        assert.equal(m.message, 'Hello team');
        assert.deepEqual(m.messageParameters, []);
        assert.equal(m.systemMessage, '');
        assert.equal(m.messageType, 'comment');
        assert.equal(m.isReplyable, true);
        assert.equal(m.referenceId, 'ref-1');
        assert.deepEqual(m.reactions, {});
        assert.equal(m.expirationTimestamp, 0);
        assert.equal(m.markdown, true);
        assert.ok(Math.abs(m.timestamp - Date.now() / 1000) < 5);
        assert.equal(m.silent, undefined);
        assert.ok(r.headers.get('x-chat-last-common-read'));
      });

      it('replies carry the parent; silent messages say so; referenceId is cut to 64', async () => {
        const first = await send(group.token, 'bob', { message: 'question?' });
        const r = await send(group.token, 'alice', { message: 'answer', replyTo: first.data.id, silent: true, referenceId: 'x'.repeat(80) });
        assert.equal(r.status, 201, r.text);
        assert.equal(r.data.parent.id, first.data.id);
        assert.equal(r.data.parent.message, 'question?');
        assert.equal(r.data.parent.parent, undefined);
        assert.equal(r.data.silent, true);
        assert.equal(r.data.referenceId.length, 64);
      });

      it('also under v1.php and as XML', async () => {
        const r1 = await send(group.token, 'alice', { message: 'via v1' }, { version: 1 });
        assert.equal(r1.status, 200);
        assert.equal(r1.meta.statuscode, 201);
        const x = await send(group.token, 'alice', { message: 'as xml' }, { format: 'xml' });
        assert.equal(x.status, 201);
        assert.match(x.text, /<message>as xml<\/message>/);
        assert.match(x.text, /<messageType>comment<\/messageType>/);
      });

      it('404 for non-participants and unknown tokens, the same body', async () => {
        const a = await send(group.token, 'dave', { message: 'hi' });
        const b = await send('zzzzzzzz', 'dave', { message: 'hi' });
        assert.equal(a.status, 404);
        assert.equal(b.status, 404);
        assert.deepEqual(a.data, b.data);
      });

      it('400 empty or whitespace, NUL bytes, bad replyTo; 413 too long; nothing stored', async () => {
        const before = (await roomRow(p, group.token))!.last_message;
        assert.equal((await send(group.token, 'alice', { message: '   ' })).data.error, 'message');
        const missing = await send(group.token, 'alice', {});
        assert.equal(missing.status, 400);
        assert.equal(missing.data.error, 'message');
        const nul = await send(group.token, 'alice', { message: 'a\u0000b' });
        assert.equal(nul.status, 400);
        assert.equal(nul.data.error, 'message');
        const wrongType = await send(group.token, 'alice', { message: 'x', replyTo: 'abc' });
        assert.equal(wrongType.status, 400);
        const noParent = await send(group.token, 'alice', { message: 'x', replyTo: 999999 });
        assert.equal(noParent.status, 400);
        assert.equal(noParent.data.error, 'reply-to');
        const long = await send(group.token, 'alice', { message: 'é'.repeat(32001) });
        assert.equal(long.status, 413);
        assert.equal(long.data.error, 'message');
        assert.equal((await roomRow(p, group.token))!.last_message, before, 'the refused messages stored nothing');
        const exact = await send(group.token, 'alice', { message: 'é'.repeat(32000) });
        assert.equal(exact.status, 201);
        assert.equal((await roomRow(p, group.token))!.last_message, exact.data.id);
        assert.ok(exact.data.id > before);
      });

      it('400 for fields of the wrong type or out of range, naming the field; nothing stored', async () => {
        const before = (await roomRow(p, group.token))!.last_message;
        const cases: [Record<string, unknown>, string][] = [
          [{ message: ['a'] }, 'message'],
          [{ message: { a: 1 } }, 'message'],
          [{ message: null }, 'message'],
          [{ message: 'x', replyTo: 1.5 }, 'reply-to'],
          [{ message: 'x', replyTo: 1e20 }, 'reply-to'],
          [{ message: 'x', referenceId: 'r'.repeat(1001) }, 'referenceId'],
          [{ message: 'x', actorDisplayName: 'n'.repeat(256) }, 'actorDisplayName'],
          [{ message: 'x', silent: 'loud' }, 'silent'],
          [{ message: 'x', actorDisplayName: ['Bob'] }, 'actorDisplayName'],
        ];
        const failures: string[] = [];
        for (const [body, field] of cases) {
          const r = await send(group.token, 'alice', body);
          if (r.status !== 400 || r.data?.error !== field) failures.push(`${field} ${JSON.stringify(body)}: ${r.status} ${r.text}`);
        }
        assert.deepEqual(failures, []);
        assert.equal((await roomRow(p, group.token))!.last_message, before);
      });

      it('403 read-only, 412 lobby (moderators pass), 403 without chat permission — in that order', async () => {
        const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Rules' });
        await seedUser(p, room.token, 'bob');
        await setRoom(p, room.token, { read_only: 1, lobby_state: 1 });
        const ro = await send(room.token, 'bob', { message: 'x' });
        assert.equal(ro.status, 403);
        assert.equal(ro.data.error, 'readOnly');
        await setRoom(p, room.token, { read_only: 0, default_permissions: 1 | 2 });
        const lobby = await send(room.token, 'bob', { message: 'x' });
        assert.equal(lobby.status, 412);
        assert.equal((await get(room.token, 'bob', { lookIntoFuture: 0 })).status, 412);
        assert.equal((await send(room.token, 'alice', { message: 'moderator passes' })).status, 201);
        await setRoom(p, room.token, { lobby_state: 0 });
        const perm = await send(room.token, 'bob', { message: 'x' });
        assert.equal(perm.status, 403);
        assert.equal(perm.data.error, 'permission');
        await setRoom(p, room.token, { default_permissions: 0 });
        assert.equal((await send(room.token, 'bob', { message: 'now ok' })).status, 201);
      });

      it('guests chat in public conversations; actorDisplayName names them', async () => {
        const guest = await joinGuest(p, pub.token);
        const r = await send(pub.token, guest.caller, { message: 'hi from a guest', actorDisplayName: 'Visitor' });
        assert.equal(r.status, 201, r.text);
        assert.equal(r.data.actorType, 'guests');
        assert.equal(r.data.actorDisplayName, 'Visitor');
        const h = await get(pub.token, guest.caller, { lookIntoFuture: 0 });
        assert.equal(h.status, 200);
        assert.equal(h.data[0].message, 'hi from a guest');
        // Without a session a guest is not a participant.
        assert.equal((await send(pub.token, {}, { message: 'x' })).status, 404);
      });
    });

    describe('one-to-one', () => {
      it('a post re-adds the other user who left, so the message reaches them; a share too', async () => {
        await createUser(p, 'olga');
        await createUser(p, 'pete');
        const one = await createRoom(p, 'olga', { roomType: RoomType.ONE_TO_ONE, invite: 'pete' });
        const left = await call(p, 'DELETE', `/apps/spreed/api/v4/room/${one.token}/participants/self`, { as: as('pete') });
        assert.equal(left.status, 200, left.text);
        assert.equal((await get(one.token, 'pete', { lookIntoFuture: 0 })).status, 404, 'pete left');
        const r = await send(one.token, 'olga', { message: 'are you there?' });
        assert.equal(r.status, 201, r.text);
        const back = await call(p, 'GET', `/apps/spreed/api/v4/room/${one.token}`, { as: as('pete') });
        assert.equal(back.status, 200, back.text);
        assert.equal(back.data.participantType, 1, 'back as owner');
        assert.equal(back.data.lastMessage.message, 'are you there?');
        assert.equal(back.data.unreadMessages, 1);
        // Leaving again, then a shared object brings him back the same way.
        assert.equal((await call(p, 'DELETE', `/apps/spreed/api/v4/room/${one.token}/participants/self`, { as: as('pete') })).status, 200);
        const shared = await call(p, 'POST', `${V1}/chat/${one.token}/share`, {
          as: as('olga'),
          body: { objectType: 'highlight', objectId: 'h', metaData: '{"name":"here"}' },
        });
        assert.equal(shared.status, 201, shared.text);
        assert.equal((await get(one.token, 'pete', { lookIntoFuture: 0 })).data[0].id, shared.data.id);
      });
    });

    describe('receive', () => {
      let room: any;
      const ids: number[] = [];
      before(async () => {
        room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'History' });
        await seedUser(p, room.token, 'bob');
        for (let i = 1; i <= 5; i++) ids.push((await send(room.token, 'alice', { message: `m${i}` })).data.id);
      });

      it('history: newest first, limit, offset, includeLastKnown, X-Chat-Last-Given', async () => {
        const all = await get(room.token, 'bob', { lookIntoFuture: 0 });
        assert.equal(all.status, 200);
        assert.deepEqual(
          all.data.slice(0, 5).map((m: any) => m.message),
          ['m5', 'm4', 'm3', 'm2', 'm1'],
        );
        assert.equal(all.data[5].systemMessage, 'conversation_created');
        const page = await get(room.token, 'bob', { lookIntoFuture: 0, limit: 2, lastKnownMessageId: ids[3] });
        assert.deepEqual(
          page.data.map((m: any) => m.message),
          ['m3', 'm2'],
        );
        assert.equal(page.headers.get('x-chat-last-given'), String(ids[1]));
        const incl = await get(room.token, 'bob', { lookIntoFuture: 0, limit: 2, lastKnownMessageId: ids[3], includeLastKnown: 1 });
        assert.deepEqual(
          incl.data.map((m: any) => m.message),
          ['m4', 'm3'],
        );
        const clamped = await get(room.token, 'bob', { lookIntoFuture: 0, limit: 100000 });
        assert.equal(clamped.status, 200);
      });

      it('an offset from another room is ignored', async () => {
        const other = (await send(group.token, 'alice', { message: 'elsewhere' })).data.id;
        const r = await get(room.token, 'bob', { lookIntoFuture: 0, lastKnownMessageId: other, limit: 1 });
        assert.equal(r.data[0].message, 'm5');
      });

      it('future: oldest first after the offset; 304 without a body when nothing comes', async () => {
        const r = await get(room.token, 'bob', { lookIntoFuture: 1, lastKnownMessageId: ids[2], timeout: 0 });
        assert.deepEqual(
          r.data.map((m: any) => m.message),
          ['m4', 'm5'],
        );
        assert.equal(r.headers.get('x-chat-last-given'), String(ids[4]));
        const started = Date.now();
        const none = await get(room.token, 'bob', { lookIntoFuture: 1, lastKnownMessageId: ids[4], timeout: 1 });
        assert.equal(none.status, 304);
        assert.equal(none.text, '');
        assert.ok(Date.now() - started >= 900, 'waited for the timeout');
      });

      it('a long-poll returns as soon as a message is posted, and setReadMarker moves the marker', async () => {
        const started = Date.now();
        const waiting = get(room.token, 'bob', { lookIntoFuture: 1, lastKnownMessageId: ids[4], timeout: 30 });
        await new Promise((r) => setTimeout(r, 200));
        await send(room.token, 'alice', { message: 'wake up' });
        const r = await waiting;
        assert.equal(r.status, 200);
        assert.equal(r.data[0].message, 'wake up');
        assert.ok(Date.now() - started < 5000);
        const bob = await p.services.repos.attendees.find((await roomRow(p, room.token))!.id, 'users', 'bob');
        assert.equal(bob!.last_read_message, ids[4]);
      });

      it('400 naming the field for a missing or malformed lookIntoFuture and malformed paging values; 404 for non-participants', async () => {
        for (const [query, field] of [
          [{}, 'lookIntoFuture'],
          [{ lookIntoFuture: 2 }, 'lookIntoFuture'],
          [{ lookIntoFuture: 'x' }, 'lookIntoFuture'],
          [{ lookIntoFuture: 0, limit: 'x' }, 'limit'],
          [{ lookIntoFuture: 0, lastKnownMessageId: 'x' }, 'lastKnownMessageId'],
          [{ lookIntoFuture: 0, lastKnownMessageId: '1e20' }, 'lastKnownMessageId'],
          [{ lookIntoFuture: 1, timeout: 1.5 }, 'timeout'],
          [{ lookIntoFuture: 1, setReadMarker: 2 }, 'setReadMarker'],
          [{ lookIntoFuture: 0, includeLastKnown: 'yes' }, 'includeLastKnown'],
          [{ lookIntoFuture: 0, lastCommonReadId: 'x' }, 'lastCommonReadId'],
        ] as Array<[Record<string, string | number>, string]>) {
          const r = await get(room.token, 'bob', query);
          assert.deepEqual([r.status, r.data?.error], [400, field], `${JSON.stringify(query)}: ${r.text}`);
        }
        assert.equal((await get(room.token, 'dave', { lookIntoFuture: 0 })).status, 404);
      });

      it('context: older (with the message) and newer, ascending; 304 for an unknown id', async () => {
        const r = await call(p, 'GET', `${V1}/chat/${room.token}/${ids[2]}/context`, { as: as('bob'), query: { limit: 1 } });
        assert.equal(r.status, 200);
        assert.deepEqual(
          r.data.map((m: any) => m.message),
          ['m2', 'm3', 'm4'],
        );
        assert.equal(r.headers.get('x-chat-last-given'), String(ids[3]));
        const none = await call(p, 'GET', `${V1}/chat/${room.token}/0/context`, { as: as('bob') });
        assert.equal(none.status, 304);
        for (const limit of ['x', 1.5]) {
          const bad = await call(p, 'GET', `${V1}/chat/${room.token}/${ids[2]}/context`, { as: as('bob'), query: { limit } });
          assert.deepEqual([bad.status, bad.data?.error], [400, 'limit'], `limit ${limit}: ${bad.text}`);
        }
        const notAnId = await call(p, 'GET', `${V1}/chat/${room.token}/abc/context`, { as: as('bob') });
        assert.deepEqual([notAnId.status, notAnId.data?.error], [400, 'message'], notAnId.text);
        assert.equal((await call(p, 'GET', `${V1}/chat/${room.token}/${ids[2]}/context`, { as: as('dave') })).status, 404);
      });
    });

    describe('edit and delete', () => {
      let room: any;
      before(async () => {
        room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Edits' });
        await seedUser(p, room.token, 'bob');
      });
      const edit = (id: number, who: string, message: unknown) => call(p, 'PUT', `${V1}/chat/${room.token}/${id}`, { as: as(who), body: { message } });
      const del = (id: number, who: string) => call(p, 'DELETE', `${V1}/chat/${room.token}/${id}`, { as: as(who) });

      it('the author edits: message_edited with the edited message as parent', async () => {
        const m = (await send(room.token, 'bob', { message: 'typo' })).data;
        const r = await edit(m.id, 'bob', 'fixed');
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.systemMessage, 'message_edited');
        assert.equal(r.data.parent.id, m.id);
        assert.equal(r.data.parent.message, 'fixed');
        assert.equal(r.data.parent.lastEditActorId, 'bob');
        assert.ok(r.data.parent.lastEditTimestamp > 0);
        // Bookkeeping: the room's last message stays the edited one.
        assert.equal((await roomRow(p, room.token))!.last_message, m.id);
      });

      it('403 for other non-moderators, 404 missing, 405 system messages, 400 empty, 413 long, 400 age', async () => {
        const m = (await send(room.token, 'alice', { message: 'mine' })).data;
        assert.equal((await edit(m.id, 'bob', 'x')).status, 403);
        assert.equal((await edit(999999, 'alice', 'x')).status, 404);
        const history = await get(room.token, 'alice', { lookIntoFuture: 0 });
        const created = history.data.find((x: any) => x.systemMessage === 'conversation_created');
        assert.equal((await edit(created.id, 'alice', 'x')).status, 405);
        assert.equal((await edit(m.id, 'alice', '  ')).data.error, 'message');
        assert.equal((await edit(m.id, 'alice', 'x'.repeat(32001))).status, 413);
        for (const message of [null, ['x'], { a: 1 }, 'a\u0000b']) {
          const bad = await edit(m.id, 'alice', message);
          assert.deepEqual([bad.status, bad.data?.error], [400, 'message'], `${JSON.stringify(message)}: ${bad.text}`);
        }
        assert.equal((await call(p, 'PUT', `${V1}/chat/${room.token}/abc`, { as: as('alice'), body: { message: 'x' } })).status, 400);
        assert.equal((await get(room.token, 'alice', { lookIntoFuture: 0, limit: 1 })).data[0].message, 'mine', 'refused edits changed nothing');
        await p.services.db.kysely
          .updateTable('chat_messages')
          .set({ created_at: Math.floor(Date.now() / 1000) - 25 * 3600 })
          .where('id', '=', m.id)
          .execute();
        const old = await edit(m.id, 'alice', 'late');
        assert.equal(old.status, 400);
        assert.equal(old.data.error, 'age');
      });

      it('the same message deleted many times at once: one 200, the others 405, one message_deleted; an edit racing them changes nothing', async () => {
        const m = (await send(room.token, 'bob', { message: 'going, going' })).data;
        const tries = await Promise.all([
          ...Array.from({ length: 12 }, () => del(m.id, 'bob')),
          ...Array.from({ length: 4 }, () => edit(m.id, 'bob', 'still here?')),
        ]);
        const deletions = tries.slice(0, 12).map((r) => r.status);
        assert.equal(deletions.filter((s) => s === 200).length, 1, `deletions: ${deletions}`);
        assert.deepEqual([...new Set(deletions.filter((s) => s !== 200))], [405], `deletions: ${deletions}`);
        for (const r of tries.slice(12)) assert.ok(r.status === 200 || (r.status === 405 && r.data.error === 'message'), r.text);
        const history = (await get(room.token, 'alice', { lookIntoFuture: 0, limit: 200 })).data;
        assert.equal(history.filter((x: any) => x.systemMessage === 'message_deleted' && x.parent.id === m.id).length, 1);
        const stored = await p.services.db.kysely
          .selectFrom('chat_messages')
          .select(['message', 'message_type'])
          .where('id', '=', m.id)
          .executeTakeFirstOrThrow();
        assert.deepEqual(stored, { message: '', message_type: 'comment_deleted' }, 'no edit wrote into the deleted message');
      });

      it('delete: 403 permission for other non-moderators, 404 message for missing ids, 404 outsiders, 405 system messages, 400 bad ids; nothing changed', async () => {
        const m = (await send(room.token, 'alice', { message: 'keep me' })).data;
        const denied = await del(m.id, 'bob');
        assert.deepEqual([denied.status, denied.data?.error], [403, 'permission'], denied.text);
        const missing = await del(999999, 'alice');
        assert.deepEqual([missing.status, missing.data?.error], [404, 'message'], missing.text);
        const elsewhere = (await send(group.token, 'alice', { message: 'in another room' })).data;
        const foreign = await del(elsewhere.id, 'alice');
        assert.deepEqual([foreign.status, foreign.data?.error], [404, 'message'], `a message of another room: ${foreign.text}`);
        const outsider = await del(m.id, 'dave');
        assert.deepEqual([outsider.status, outsider.data?.error], [404, 'room'], outsider.text);
        const history = await get(room.token, 'alice', { lookIntoFuture: 0 });
        const created = history.data.find((x: any) => x.systemMessage === 'conversation_created');
        const system = await del(created.id, 'alice');
        assert.deepEqual([system.status, system.data?.error], [405, 'message'], system.text);
        for (const id of ['abc', '-1', '1.5']) {
          const bad = await call(p, 'DELETE', `${V1}/chat/${room.token}/${id}`, { as: as('alice') });
          assert.equal(bad.status, 400, `${id}: ${bad.text}`);
        }
        const after = await get(room.token, 'alice', { lookIntoFuture: 0, limit: 1 });
        assert.deepEqual([after.data[0].id, after.data[0].message], [m.id, 'keep me'], 'refused deletes changed nothing');
        assert.equal((await get(group.token, 'alice', { lookIntoFuture: 0, limit: 1 })).data[0].message, 'in another room');
      });

      it("a moderator deletes anyone's message (no age limit); the message says who", async () => {
        const m = (await send(room.token, 'bob', { message: 'oops' })).data;
        await p.services.db.kysely.updateTable('chat_messages').set({ created_at: 1 }).where('id', '=', m.id).execute();
        assert.equal((await del(m.id, 'bob')).status, 200, 'the author may delete');
        const m2 = (await send(room.token, 'bob', { message: 'again' })).data;
        const r = await del(m2.id, 'alice');
        assert.equal(r.status, 200);
        assert.equal(r.data.systemMessage, 'message_deleted');
        assert.equal(r.data.parent.messageType, 'comment_deleted');
        assert.equal(r.data.parent.deleted, true);
        assert.equal(r.data.parent.message, 'Message deleted by you');
        // The deleter is named in the answer's parent and when read, as Talk's parseDeletedMessage.
        const deleter = { type: 'user', id: 'alice', name: 'Alice A', 'mention-id': 'alice' };
        assert.deepEqual(r.data.messageParameters.actor, deleter);
        assert.deepEqual(r.data.parent.messageParameters.actor, deleter);
        const seen = await get(room.token, 'bob', { lookIntoFuture: 0, limit: 5 });
        const gone = seen.data.find((x: any) => x.id === m2.id);
        assert.equal(gone.message, 'Message deleted by {actor}');
        assert.deepEqual(gone.messageParameters.actor, deleter);
        // The author's own deletion names the author (read by someone else).
        const own = (await get(room.token, 'alice', { lookIntoFuture: 0, limit: 5 })).data.find((x: any) => x.id === m.id);
        assert.equal(own.message, 'Message deleted by author');
        assert.deepEqual(own.messageParameters.actor, { type: 'user', id: 'bob', name: 'Bob B', 'mention-id': 'bob' });
        assert.equal(gone.isReplyable, false);
        // The deleter is named by their current name, as Talk reads it when rendering (not the name at the deletion).
        await p.services.directory.setDisplayName('alice', 'Alice Renamed');
        try {
          const later = await get(room.token, 'bob', { lookIntoFuture: 0, limit: 5 });
          const renamed = { ...deleter, name: 'Alice Renamed' };
          assert.deepEqual(later.data.find((x: any) => x.id === m2.id).messageParameters.actor, renamed);
          const notice = later.data.find((x: any) => x.systemMessage === 'message_deleted' && x.parent?.id === m2.id);
          assert.deepEqual(notice.messageParameters.actor, renamed);
          assert.deepEqual(notice.parent.messageParameters.actor, renamed);
        } finally {
          await p.services.directory.setDisplayName('alice', 'Alice A');
        }
        assert.equal((await del(m2.id, 'alice')).status, 405, 'already deleted');
      });

      it('edit, delete and mention autocomplete: 403 readOnly, 412 lobby (moderators pass), 403 permission — in that order; nothing changed', async () => {
        const locked = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Locked edits' });
        await seedUser(p, locked.token, 'bob');
        const m = (await send(locked.token, 'bob', { message: 'as written' })).data;
        const attempts = async () => {
          const e = await call(p, 'PUT', `${V1}/chat/${locked.token}/${m.id}`, { as: as('bob'), body: { message: 'changed' } });
          const d = await call(p, 'DELETE', `${V1}/chat/${locked.token}/${m.id}`, { as: as('bob') });
          const a = await call(p, 'GET', `${V1}/chat/${locked.token}/mentions`, { as: as('bob'), query: { search: '' } });
          return [e, d, a].map((r) => `${r.status} ${r.data?.error}`);
        };
        await setRoom(p, locked.token, { read_only: 1, lobby_state: 1 });
        assert.deepEqual(await attempts(), ['403 readOnly', '403 readOnly', '403 readOnly']);
        await setRoom(p, locked.token, { read_only: 0, default_permissions: 1 | 2 });
        assert.deepEqual(await attempts(), ['412 lobby', '412 lobby', '412 lobby']);
        const moderator = await call(p, 'GET', `${V1}/chat/${locked.token}/mentions`, { as: as('alice'), query: { search: '' } });
        assert.equal(moderator.status, 200, 'moderators pass the lobby');
        await setRoom(p, locked.token, { lobby_state: 0 });
        assert.deepEqual(await attempts(), ['403 permission', '403 permission', '403 permission']);
        const seen = await get(locked.token, 'alice', { lookIntoFuture: 0, limit: 1 });
        assert.deepEqual([seen.data[0].id, seen.data[0].message], [m.id, 'as written']);
      });

      it('guests cannot edit or delete (404)', async () => {
        const guest = await joinGuest(p, pub.token);
        const m = (await send(pub.token, guest.caller, { message: 'guest text' })).data;
        const r = await call(p, 'DELETE', `${V1}/chat/${pub.token}/${m.id}`, { as: guest.caller });
        assert.equal(r.status, 404);
        const e = await call(p, 'PUT', `${V1}/chat/${pub.token}/${m.id}`, { as: guest.caller, body: { message: 'edited by a guest' } });
        assert.equal(e.status, 404, e.text);
        const seen = await get(pub.token, 'alice', { lookIntoFuture: 0, limit: 1 });
        assert.deepEqual([seen.data[0].id, seen.data[0].message], [m.id, 'guest text'], 'neither changed the message');
      });

      it('edit: 404 for outsiders and unknown tokens, 404 message for another room’s message', async () => {
        const m = (await send(room.token, 'alice', { message: 'only here' })).data;
        const outsider = await edit(m.id, 'dave', 'x');
        assert.deepEqual([outsider.status, outsider.data?.error], [404, 'room'], outsider.text);
        const unknown = await call(p, 'PUT', `${V1}/chat/zzzzzzzz/${m.id}`, { as: as('alice'), body: { message: 'x' } });
        assert.deepEqual([unknown.status, unknown.data?.error], [404, 'room'], unknown.text);
        const elsewhere = (await send(group.token, 'alice', { message: 'not in Edits' })).data;
        const foreign = await edit(elsewhere.id, 'alice', 'x');
        assert.deepEqual([foreign.status, foreign.data?.error], [404, 'message'], foreign.text);
        assert.equal((await get(group.token, 'alice', { lookIntoFuture: 0, limit: 1 })).data[0].message, 'not in Edits');
        assert.equal((await get(room.token, 'alice', { lookIntoFuture: 0, limit: 1 })).data[0].message, 'only here');
      });
    });

    describe('clear history', () => {
      it('403 for non-moderators; moderators leave only history_cleared and reset markers', async () => {
        const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Clear' });
        await seedUser(p, room.token, 'bob');
        await send(room.token, 'alice', { message: 'one' });
        await send(room.token, 'bob', { message: 'two' });
        const no = await call(p, 'DELETE', `${V1}/chat/${room.token}`, { as: as('bob') });
        assert.equal(no.status, 403);
        await setRoom(p, room.token, { read_only: 1 });
        const ro = await call(p, 'DELETE', `${V1}/chat/${room.token}`, { as: as('alice') });
        assert.deepEqual([ro.status, ro.data?.error], [403, 'readOnly'], ro.text);
        await setRoom(p, room.token, { read_only: 0 });
        assert.deepEqual(
          (await get(room.token, 'alice', { lookIntoFuture: 0, limit: 2 })).data.map((m: any) => m.message),
          ['two', 'one'],
          'the refused clears removed nothing',
        );
        const r = await call(p, 'DELETE', `${V1}/chat/${room.token}`, { as: as('alice') });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.systemMessage, 'history_cleared');
        const h = await get(room.token, 'bob', { lookIntoFuture: 0 });
        assert.deepEqual(
          h.data.map((m: any) => m.systemMessage),
          ['history_cleared'],
        );
        const bob = await p.services.repos.attendees.find((await roomRow(p, room.token))!.id, 'users', 'bob');
        assert.equal(bob!.last_read_message, -2, "Talk's resetChatDetails: the first message is unread");
        assert.equal((await call(p, 'DELETE', `${V1}/chat/${room.token}`, { as: as('dave') })).status, 404);
        const one = await createRoom(p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
        assert.equal((await call(p, 'DELETE', `${V1}/chat/${one.token}`, { as: as('alice') })).status, 403);
      });
    });

    it('capabilities list exactly the chat features implemented, and config.chat', async () => {
      const r = await call(p, 'GET', '/cloud/capabilities', { as: as('alice') });
      const spreed = r.data.capabilities.spreed;
      for (const f of [
        'chat-v2',
        'chat-read-marker',
        'chat-unread',
        'chat-read-last',
        'chat-read-status',
        'direct-mention-flag',
        'mention-flag',
        'edit-messages',
        'delete-messages',
        'delete-messages-unlimited',
        'clear-history',
        'chat-get-context',
        'chat-replies',
        'chat-reference-id',
        'silent-send',
        'system-messages',
      ]) {
        assert.ok(spreed.features.includes(f), f);
      }
      for (const f of ['chat-read-status', 'remind-me-later', 'upcoming-reminders', 'scheduled-messages']) assert.ok(spreed['features-local'].includes(f), f);
      assert.ok(spreed.features.includes('reactions') && spreed.features.includes('talk-polls') && spreed.features.includes('pinned-messages'));
      for (const f of ['react-permission', 'threads']) {
        assert.ok(!spreed.features.includes(f), `${f} is not implemented`);
      }
      assert.equal(spreed.config.chat['max-length'], 32000);
      assert.equal(spreed.config.chat['read-privacy'], 0);
    });

    describe('mention autocomplete', () => {
      it("orders users as Talk's sorter does: names starting with the term first, then who wrote last; users before groups", async () => {
        await createUser(p, 'mara', { displayName: 'Mara Ann' });
        await createUser(p, 'anna2', { displayName: 'Anna Two' });
        await createUser(p, 'joanna', { displayName: 'Joanna' });
        const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Sorting' });
        for (const u of ['mara', 'anna2', 'joanna']) await seedUser(p, room.token, u);
        await p.services.directory.createGroup('annagroup', 'Anna group');
        await p.services.repos.attendees.insertIgnoringDuplicates([
          {
            room_id: (await p.services.repos.rooms.findByToken(room.token))!.id,
            actor_type: 'groups',
            actor_id: 'annagroup',
            display_name: 'Anna group',
            participant_type: 3,
          } as any,
        ]);
        const mentions = async (search: string) =>
          (await call(p, 'GET', `${V1}/chat/${room.token}/mentions`, { as: as('alice'), query: { search } })).data.map((x: any) => x.id);
        // Nobody wrote: "Anna Two" starts with the term, the others contain it; users before the group.
        assert.deepEqual(await mentions('ann'), ['anna2', 'mara', 'joanna', 'group/annagroup']);
        // joanna, then mara write: the latest writer first among those not starting with the term.
        await send(room.token, 'joanna', { message: 'hi' });
        await send(room.token, 'mara', { message: 'hello' });
        assert.deepEqual(await mentions('ann'), ['anna2', 'mara', 'joanna', 'group/annagroup']);
        const again = (await send(room.token, 'joanna', { message: 'again' })).data;
        // Talk compares when each last wrote, to the second: make joanna's message clearly the latest.
        await p.services.db.kysely
          .updateTable('chat_messages')
          .set({ created_at: again.timestamp + 60 })
          .where('id', '=', again.id)
          .execute();
        assert.deepEqual(await mentions('ann'), ['anna2', 'joanna', 'mara', 'group/annagroup']);
        // Without a term: everyone first, then the users by who wrote last, then the rest.
        assert.deepEqual(await mentions(''), ['all', 'joanna', 'mara', 'anna2', 'group/annagroup']);
      });

      it('lists participants matching the search (not the caller) and the everyone entry', async () => {
        const r = await call(p, 'GET', `${V1}/chat/${group.token}/mentions`, { as: as('alice'), query: { search: 'bo' } });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.data, [{ id: 'bob', label: 'Bob B', source: 'users', mentionId: 'bob' }]);
        const all = await call(p, 'GET', `${V1}/chat/${group.token}/mentions`, { as: as('alice'), query: { search: '' } });
        assert.ok(all.data.some((x: any) => x.id === 'carol'));
        assert.ok(!all.data.some((x: any) => x.id === 'alice'));
        // The everyone entry comes first, as Talk's mentions endpoint puts it (docs/reference/chat.md#mention-autocomplete).
        const everyone = all.data[0];
        assert.equal(everyone.id, 'all');
        assert.equal(everyone.source, 'calls');
        assert.equal(everyone.label, 'Team');
        assert.equal((await call(p, 'GET', `${V1}/chat/${group.token}/mentions`, { as: as('alice') })).status, 400);
        for (const [query, field] of [
          [{ search: 'a\u0000' }, 'search'],
          [{ search: 'a'.repeat(256) }, 'search'],
          [{ search: '', limit: 'x' }, 'limit'],
          [{ search: '', limit: '0' }, 'limit'],
          [{ search: '', includeStatus: 'maybe' }, 'includeStatus'],
        ] as Array<[Record<string, string>, string]>) {
          const bad = await call(p, 'GET', `${V1}/chat/${group.token}/mentions`, { as: as('alice'), query });
          assert.equal(bad.status, 400, `${JSON.stringify(query)}: ${bad.text}`);
          assert.equal(bad.data.error, field, `${JSON.stringify(query)}: ${bad.text}`);
        }
        assert.equal((await call(p, 'GET', `${V1}/chat/${group.token}/mentions`, { as: as('dave'), query: { search: '' } })).status, 404);
      });
    });
  });
}
