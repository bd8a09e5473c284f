/**
 * Message reminders (docs/reference/chat.md#reminders, Talk's chat-2/reminder scenarios):
 * POST/GET/DELETE /chat/{token}/{messageId}/reminder and GET /chat/upcoming-reminders — every
 * status, bad input, the per-user rate limit, XML — and the reminder job: due reminders become
 * `reminder` notifications with Talk's subjects (you, a user, a deleted user, named and anonymous
 * guests, one-to-one), none for deleted messages or people who left, and deleting a reminder
 * that was due dismisses its notification. The same on SQLite and PostgreSQL.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, createUser, dialects } from './helpers/parley.js';
import { createRoom, joinGuest, NO_THROTTLE, seedUser, setRoom } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';
import { jobs, runJobIfDue } from '../src/jobs/index.js';

const V1 = '/apps/spreed/api/v1';
const NOTES = '/apps/notifications/api/v2/notifications';
/** A time long past (Talk's scenarios use 1234567) and one far ahead. */
const PAST = 1234567;
const FUTURE = 2133349024;

for (const dialect of dialects()) {
  describe(`message reminders [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE });
    let room: any;
    let msg: number;
    before(async () => {
      for (const u of ['alice', 'bob', 'carol', 'dave', 'erin', 'rater']) await createUser(t.p, u, { displayName: u.toUpperCase() });
      room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Reminders' });
      for (const u of ['bob', 'carol', 'rater']) await seedUser(t.p, room.token, u);
      msg = await post('alice', room.token, 'Remember me');
    });

    async function post(who: any, token: string, message: string): Promise<number> {
      const r = await t.call('POST', `${V1}/chat/${token}`, { as: typeof who === 'string' ? as(who) : who, body: { message } });
      assert.equal(r.status, 201, r.text);
      return r.data.id;
    }
    const path = (token: string, id: number | string) => `${V1}/chat/${token}/${id}/reminder`;
    const setR = (who: any, id: number | string, timestamp: unknown, token = room.token, opts: Record<string, unknown> = {}) =>
      t.call('POST', path(token, id), { as: typeof who === 'string' ? as(who) : who, body: { timestamp }, ...opts });
    const getR = (who: any, id: number | string, token = room.token, opts: Record<string, unknown> = {}) =>
      t.call('GET', path(token, id), { as: typeof who === 'string' ? as(who) : who, ...opts });
    const delR = (who: any, id: number | string, token = room.token) => t.call('DELETE', path(token, id), { as: typeof who === 'string' ? as(who) : who });
    const upcoming = (who: string, opts: Record<string, unknown> = {}) => t.call('GET', `${V1}/chat/upcoming-reminders`, { as: as(who), ...opts });
    const runJob = async () => {
      const out = await runJobIfDue(
        t.p.services,
        jobs.find((j) => j.name === 'chat-reminders')!,
        true,
      );
      assert.equal(out.status, 'ok', out.error);
      return out.summary;
    };
    const reminderNotes = async (who: string) => ((await t.call('GET', NOTES, { as: as(who) })).data as any[]).filter((n) => n.object_type === 'reminder');

    it('201 sets a reminder as Talk answers it; a second POST moves it; GET reads it; DELETE 200 [] removes it', async () => {
      const r = await setR('bob', msg, FUTURE);
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(r.data, { userId: 'bob', token: room.token, messageId: msg, timestamp: FUTURE });
      const moved = await setR('bob', msg, FUTURE + 60);
      assert.equal(moved.status, 201);
      assert.equal(moved.data.timestamp, FUTURE + 60);
      const g = await getR('bob', msg);
      assert.equal(g.status, 200);
      assert.deepEqual(g.data, { userId: 'bob', token: room.token, messageId: msg, timestamp: FUTURE + 60 });
      const stored = await t.p.services.db.kysely.selectFrom('chat_reminders').selectAll().where('user_id', '=', 'bob').execute();
      assert.equal(stored.length, 1, 'one reminder per user and message');
      assert.equal((await getR('carol', msg)).status, 404, 'reminders are per user');
      assert.deepEqual((await getR('carol', msg)).data, { error: 'reminder', message: 'No reminder is set for this message' });
      const d = await delR('bob', msg);
      assert.equal(d.status, 200);
      assert.deepEqual(d.data, []);
      assert.equal((await getR('bob', msg)).status, 404);
      assert.equal((await delR('bob', msg)).status, 200, 'deleting again is fine');
    });

    it('XML answers', async () => {
      const r = await setR('bob', msg, FUTURE, room.token, { format: 'xml' });
      assert.equal(r.status, 201);
      assert.match(
        r.text,
        new RegExp(`<userId>bob</userId>\\s*<token>${room.token}</token>\\s*<messageId>${msg}</messageId>\\s*<timestamp>${FUTURE}</timestamp>`),
      );
      const u = await upcoming('bob', { format: 'xml' });
      assert.equal(u.status, 200);
      assert.match(u.text, /<reminderTimestamp>2133349024<\/reminderTimestamp>/);
      assert.match(u.text, /<message>Remember me<\/message>/);
      await delR('bob', msg);
    });

    it('404: not a participant, unknown token, a message of another conversation, an unknown message; 412 in the lobby', async () => {
      const other = await createRoom(t.p, 'dave', { roomType: RoomType.GROUP, roomName: 'Elsewhere' });
      const foreign = await post('dave', other.token, 'Not yours');
      assert.equal((await setR('dave', msg, FUTURE)).status, 404, 'dave is not in the room');
      assert.equal((await getR('dave', msg)).status, 404);
      assert.equal((await delR('dave', msg)).status, 404);
      assert.equal((await setR('bob', msg, FUTURE, 'nosuchtoken')).status, 404);
      const wrong = await setR('bob', foreign, FUTURE);
      assert.equal(wrong.status, 404);
      assert.deepEqual(wrong.data, { error: 'message', message: 'The message does not exist' });
      assert.equal((await setR('bob', 99999999, FUTURE)).status, 404);
      assert.equal((await getR('bob', 99999999)).data.error, 'message');
      assert.equal((await delR('bob', 0)).data.error, 'message');

      const lobby = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Lobby' });
      await seedUser(t.p, lobby.token, 'bob');
      const inLobby = await post('alice', lobby.token, 'Behind the lobby');
      await setRoom(t.p, lobby.token, { lobby_state: 1 });
      assert.equal((await setR('bob', inLobby, FUTURE, lobby.token)).status, 412);
      assert.equal((await getR('bob', inLobby, lobby.token)).status, 412);
      assert.equal((await setR('alice', inLobby, FUTURE, lobby.token)).status, 201, 'moderators pass the lobby');
    });

    it('401 for guests and anonymous callers; guests have no upcoming reminders either', async () => {
      const pub = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Open' });
      const guest = await joinGuest(t.p, pub.token);
      const said = await post(guest.caller, pub.token, 'A guest speaks');
      assert.equal((await setR(guest.caller, said, FUTURE, pub.token)).status, 401);
      assert.equal((await getR(guest.caller, said, pub.token)).status, 401);
      assert.equal((await delR(guest.caller, said, pub.token)).status, 401);
      assert.equal((await setR({}, said, FUTURE, pub.token)).status, 401);
      assert.equal((await t.call('GET', `${V1}/chat/upcoming-reminders`, { as: guest.caller })).status, 401);
    });

    it('400 for bad input, and nothing is stored', async () => {
      const before = await t.p.services.db.kysely.selectFrom('chat_reminders').select('id').execute();
      for (const [body, why] of [
        [{}, 'missing'],
        [{ timestamp: 'soon' }, 'not a number'],
        [{ timestamp: -1 }, 'negative'],
        [{ timestamp: 1.5 }, 'not an integer'],
        [{ timestamp: '1e30' }, 'out of range'],
        [{ timestamp: '12\u00003' }, 'NUL byte'],
        [{ timestamp: [1] }, 'a list'],
      ] as const) {
        const r = await t.call('POST', path(room.token, msg), { as: as('carol'), body });
        assert.equal(r.status, 400, `${why}: ${r.text}`);
        assert.equal(r.data.error, 'timestamp', why);
      }
      for (const id of ['abc', '-1', '1.5']) {
        const r = await setR('carol', id, FUTURE);
        assert.equal(r.status, 400, `message id ${id}`);
        assert.equal(r.data.error, 'message');
      }
      const r = await t.call('POST', `${V1}/chat/x/${msg}/reminder`, { as: as('carol'), body: { timestamp: FUTURE } });
      assert.equal(r.status, 404, 'a malformed token is not a conversation, as an unknown one');
      const after = await t.p.services.db.kysely.selectFrom('chat_reminders').select('id').execute();
      assert.equal(after.length, before.length);
    });

    it('429 past 60 reminders set in an hour by one user (refused ones do not count); others are unaffected', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 62; i++) statuses.push((await setR('rater', msg, FUTURE + i)).status);
      assert.deepEqual(statuses.slice(0, 60), Array(60).fill(201));
      assert.deepEqual(statuses.slice(60), [429, 429]);
      const refused = await setR('rater', msg, FUTURE);
      assert.equal(refused.data.error, 'rate-limit');
      assert.equal((await getR('rater', msg)).data.timestamp, FUTURE + 59, 'the refused ones changed nothing');
      assert.equal((await getR('rater', msg)).status, 200, 'reading is not limited');
      assert.equal((await setR('carol', msg, FUTURE)).status, 201, 'another user is not limited');
      await delR('carol', msg);
      await delR('rater', msg);
    });

    it('upcoming: soonest first, at most ten, the message as the user reads it (a deleted one as deleted); left conversations drop out', async () => {
      const list = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Upcoming' });
      await seedUser(t.p, list.token, 'erin');
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) ids.push(await post('alice', list.token, `Item ${i} for @erin`));
      // Set out of order: the list is by time, not by when they were set.
      for (let i = 11; i >= 0; i--) assert.equal((await setR('erin', ids[i], FUTURE + i, list.token)).status, 201);
      const u = await upcoming('erin');
      assert.equal(u.status, 200);
      assert.equal(u.data.length, 10);
      assert.deepEqual(
        u.data.map((x: any) => x.messageId),
        ids.slice(0, 10),
      );
      const first = u.data[0];
      assert.deepEqual(Object.keys(first), [
        'reminderTimestamp',
        'roomToken',
        'messageId',
        'actorType',
        'actorId',
        'actorDisplayName',
        'message',
        'messageParameters',
      ]);
      assert.equal(first.reminderTimestamp, FUTURE);
      assert.equal(first.roomToken, list.token);
      assert.equal(first.actorType, 'users');
      assert.equal(first.actorId, 'alice');
      assert.equal(first.actorDisplayName, 'ALICE');
      assert.equal(first.message, 'Item 0 for {mention-user1}');
      assert.equal(first.messageParameters['mention-user1'].id, 'erin');

      assert.equal((await t.call('DELETE', `${V1}/chat/${list.token}/${ids[0]}`, { as: as('alice') })).status, 200);
      const afterDelete = (await upcoming('erin')).data;
      assert.equal(afterDelete[0].messageId, ids[0], 'a deleted message is still a message (shown as deleted)');
      assert.equal(afterDelete[0].message, 'Message deleted by author');

      assert.equal((await t.call('DELETE', `/apps/spreed/api/v4/room/${list.token}/participants/self`, { as: as('erin') })).status, 200);
      assert.deepEqual((await upcoming('erin')).data, [], 'a conversation left takes its reminders out of the list');
      assert.deepEqual((await upcoming('dave')).data, [], 'nobody else sees them');
    });

    it('the job: due reminders become notifications with Talk subjects; future ones wait; each is notified once', async () => {
      const r2 = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Due' });
      for (const u of ['bob', 'carol']) await seedUser(t.p, r2.token, u);
      const m = await post('alice', r2.token, 'Pay @bob the rent');
      assert.equal((await setR('bob', m, PAST, r2.token)).status, 201);
      assert.equal((await setR('alice', m, PAST, r2.token)).status, 201);
      assert.equal((await setR('carol', m, FUTURE, r2.token)).status, 201);
      assert.equal(await runJob(), '2 reminders notified');
      assert.equal(await runJob(), '0 reminders notified', 'a reminder is notified once');
      assert.equal((await getR('bob', m, r2.token)).status, 404, 'a due reminder is gone once notified');
      assert.equal((await getR('carol', m, r2.token)).status, 200, 'a future one waits');
      assert.equal((await reminderNotes('carol')).length, 0);

      const [bob] = await reminderNotes('bob');
      assert.ok(bob, 'bob is reminded');
      assert.equal(bob.app, 'spreed');
      assert.equal(bob.object_id, `${r2.token}/${m}`);
      assert.equal(bob.subject, 'Reminder: ALICE in conversation Due');
      assert.equal(bob.subjectRich, 'Reminder: {user} in conversation {call}');
      assert.equal(bob.subjectRichParameters.user.id, 'alice');
      assert.equal(bob.subjectRichParameters.call.name, 'Due');
      assert.equal(bob.messageRich, 'Pay {mention-user1} the rent');
      assert.equal(bob.message, 'Pay @BOB the rent');
      assert.equal(bob.datetime, new Date(PAST * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00'), 'dated at the reminder time');
      assert.match(bob.link, new RegExp(`/call/${r2.token}#message_${m}$`));
      assert.deepEqual(
        bob.actions.map((a: any) => a.label),
        ['View chat'],
      );
      const [own] = await reminderNotes('alice');
      assert.equal(own.subject, 'Reminder: You in conversation Due');

      // Reading the chat does not dismiss a reminder (only mentions go).
      await t.call('POST', `${V1}/chat/${r2.token}/read`, { as: as('bob'), body: { lastReadMessage: m } });
      assert.equal((await reminderNotes('bob')).length, 1);
      // Deleting the reminder after it was due dismisses the notification (Talk's deleteReminder).
      assert.equal((await delR('bob', m, r2.token)).status, 200);
      assert.equal((await reminderNotes('bob')).length, 0);
      assert.equal((await reminderNotes('alice')).length, 1, "alice's stays");
    });

    it('the job: guests (named and anonymous), deleted authors and one-to-ones read as Talk writes them', async () => {
      const pub = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Guests' });
      const named = await joinGuest(t.p, pub.token);
      const namedMsg = (
        await t.call('POST', `${V1}/chat/${pub.token}`, { as: named.caller, body: { message: 'From a named guest', actorDisplayName: 'FooBar' } })
      ).data.id;
      const anon = await joinGuest(t.p, pub.token);
      const anonMsg = await post(anon.caller, pub.token, 'From nobody in particular');
      await setR('alice', namedMsg, PAST, pub.token);
      await setR('alice', anonMsg, PAST + 1, pub.token);

      await createUser(t.p, 'gone', { displayName: 'GONE' });
      const grp = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Departed' });
      await seedUser(t.p, grp.token, 'gone');
      const goneMsg = await post('gone', grp.token, 'Last words');
      await setR('alice', goneMsg, PAST + 2, grp.token);

      const one = await createRoom(t.p, 'bob', { roomType: RoomType.ONE_TO_ONE, invite: 'alice' });
      const fromBob = await post('bob', one.token, 'Just us');
      await setR('alice', fromBob, PAST + 3, one.token);
      await setR('bob', fromBob, PAST + 3, one.token);

      await createUser(t.p, 'leaver', { displayName: 'LEAVER' });
      const former = await createRoom(t.p, 'leaver', { roomType: RoomType.ONE_TO_ONE, invite: 'alice' });
      const fromLeaver = await post('leaver', former.token, 'Before I go');
      await setR('alice', fromLeaver, PAST + 4, former.token);

      assert.equal(await runJob(), '6 reminders notified');
      assert.equal((await t.call('DELETE', '/cloud/users/gone', { as: admin })).status, 200);
      // A deleted user turns the one-to-one into a former one-to-one (type 5).
      assert.equal((await t.call('DELETE', '/cloud/users/leaver', { as: admin })).status, 200);

      const subjects = (await reminderNotes('alice')).map((n: any) => n.subject);
      assert.ok(subjects.includes('Reminder: FooBar (guest) in conversation Guests'), subjects.join(' | '));
      assert.ok(subjects.includes('Reminder: A guest in conversation Guests'), subjects.join(' | '));
      assert.ok(subjects.includes('Reminder: A deleted user in conversation Departed'), subjects.join(' | '));
      assert.ok(subjects.includes('Reminder: BOB in private conversation'), subjects.join(' | '));
      assert.ok(
        subjects.some((x: string) => x.startsWith('Reminder: A deleted user in private conversation')),
        subjects.join(' | '),
      );
      const bobs = (await reminderNotes('bob')).map((n: any) => n.subject);
      assert.ok(bobs.includes('Reminder: You in private conversation ALICE'), bobs.join(' | '));
    });

    it('the job sends nothing for a deleted message or to somebody who left; a deleted conversation takes its reminders along', async () => {
      const r3 = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Quiet' });
      for (const u of ['bob', 'carol']) await seedUser(t.p, r3.token, u);
      const deleted = await post('alice', r3.token, 'Soon gone');
      await setR('bob', deleted, PAST, r3.token);
      assert.equal((await t.call('DELETE', `${V1}/chat/${r3.token}/${deleted}`, { as: as('alice') })).status, 200);
      const kept = await post('alice', r3.token, 'For carol');
      await setR('carol', kept, PAST, r3.token);
      assert.equal((await t.call('DELETE', `/apps/spreed/api/v4/room/${r3.token}/participants/self`, { as: as('carol') })).status, 200);
      const before = (await reminderNotes('bob')).length;
      assert.equal(await runJob(), '0 reminders notified');
      assert.equal((await reminderNotes('bob')).length, before);

      const r4 = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Doomed' });
      await seedUser(t.p, r4.token, 'bob');
      const m4 = await post('alice', r4.token, 'Doomed message');
      await setR('bob', m4, FUTURE, r4.token);
      assert.equal((await t.call('DELETE', `/apps/spreed/api/v4/room/${r4.token}`, { as: as('alice') })).status, 200);
      const left = await t.p.services.db.kysely.selectFrom('chat_reminders').selectAll().where('message_id', '=', m4).execute();
      assert.deepEqual(left, [], 'a deleted conversation takes its reminders along');
    });
  });
}
