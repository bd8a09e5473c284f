/**
 * unreadMessages kept as counters (migration 0706-chat-unread-counters): every event that moves
 * them, asserted through HTTP, and after each step checked against a recount of the messages
 * (the rule of docs/reference/conversations.md#the-conversation-record `unreadMessages`: counted chat types after the read marker,
 * expired ones left out). Also the mention flags, the backfill of the migration, and GET /room's
 * statement count with 0 and with many unread messages.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { as, createUser, dialects } from './helpers/parley.js';
import { countQueries, createRoom, roomRow, seedUser, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';
import { UNREAD_TYPES } from '../src/db/repositories/chat-messages.js';
import { chatUnreadCounters } from '../src/db/migrations/0706-chat-unread-counters.js';
import { recordRevisions } from '../src/db/migrations/0711-record-revisions.js';
import { createRevTableUpdateFeed } from '../src/db/migrations/0712-change-feed.js';
import { attendeeConversationMarks } from '../src/db/migrations/0717-attendee-conversation-marks.js';
import { dropPinnedMessages, pinnedMessages } from '../src/db/migrations/0719-pinned-messages.js';
import { addScheduledMessagesColumn, dropScheduledMessagesColumn } from '../src/db/migrations/0720-scheduled-messages.js';
import { addDeletedByNameColumn, dropDeletedByNameColumn } from '../src/db/migrations/0750-chat-deleted-by-name.js';
import { federatedRooms } from '../src/db/migrations/0910-federated-rooms.js';
import { addHasFederationColumn, dropHasFederationColumn } from '../src/db/migrations/0920-federation-sync.js';
import { jobs, runJobIfDue } from '../src/jobs/index.js';
import { nowSeconds } from '../src/domain/time.js';

const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`chat unread counters [${dialect}]`, () => {
    const t = useParley(dialect);
    before(async () => {
      for (const u of ['ann', 'ben', 'cat', 'dan']) await createUser(t.p, u);
    });

    const record = async (token: string, who: string) => {
      const r = await t.call('GET', `${V4}/room/${token}`, { as: as(who) });
      assert.equal(r.status, 200, r.text);
      return r.data;
    };
    const unread = async (token: string, who: string) => (await record(token, who)).unreadMessages as number;
    /** The list's unread count of `token` (GET /room, the path the counters are for). */
    const listed = async (token: string, who: string) => {
      const r = await t.call('GET', `${V4}/room`, { as: as(who) });
      return r.data.find((x: any) => x.token === token).unreadMessages as number;
    };
    /** The count by the rule itself, from the messages (what the list used to compute per request). */
    const recount = async (token: string, who: string) => {
      const room = (await roomRow(t.p, token))!;
      const a = await t.p.services.db.kysely
        .selectFrom('attendees')
        .select('last_read_message')
        .where('room_id', '=', room.id)
        .where('actor_type', '=', 'users')
        .where('actor_id', '=', who)
        .executeTakeFirstOrThrow();
      const now = nowSeconds();
      const r = await t.p.services.db.kysely
        .selectFrom('chat_messages')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('room_id', '=', room.id)
        .where('id', '>', a.last_read_message)
        .where('message_type', 'in', UNREAD_TYPES)
        .where((eb) => eb.or([eb('expires_at', '=', 0), eb('expires_at', '>', now)]))
        .executeTakeFirstOrThrow();
      // Talk's formatRoom: a user whose marker is -2 (0 reads as -2) has the first message unread.
      return a.last_read_message <= 0 && Number(r.n) === 0 ? 1 : Number(r.n);
    };
    /** Each user's count through GET /room/{token} and GET /room equals the recount and `expected`. */
    const expectUnread = async (token: string, expected: Record<string, number>) => {
      for (const [who, n] of Object.entries(expected)) {
        assert.equal(await unread(token, who), n, `${who}: GET /room/{token}`);
        assert.equal(await listed(token, who), n, `${who}: GET /room`);
        assert.equal(await recount(token, who), n, `${who}: recount`);
      }
    };
    const groupRoom = async (name: string) => {
      const room = await createRoom(t.p, 'ann', { roomType: RoomType.GROUP, roomName: name });
      for (const u of ['ben', 'cat']) await seedUser(t.p, room.token, u);
      return room.token as string;
    };
    const readTo = async (token: string, who: string, lastReadMessage?: number | null) => {
      const r = await t.call('POST', `${V1}/chat/${token}/read`, { as: as(who), body: lastReadMessage === undefined ? {} : { lastReadMessage } });
      assert.equal(r.status, 200, r.text);
      return r.data;
    };

    it('a post counts for everybody but its author; system messages and reactions do not count', async () => {
      const token = await groupRoom('Posts');
      await expectUnread(token, { ann: 0, ben: 0, cat: 0 });
      const m1 = await t.say(token, 'ann', 'one');
      await t.say(token, 'ann', 'two');
      await expectUnread(token, { ann: 0, ben: 2, cat: 2 });
      await t.say(token, 'ben', 'three');
      // ben's post moves his marker past everything: his count is 0 again.
      await expectUnread(token, { ann: 1, ben: 0, cat: 3 });
      assert.equal((await t.call('POST', `${V1}/reaction/${token}/${m1}`, { as: as('cat'), body: { reaction: '👍' } })).status, 201);
      assert.equal((await t.call('PUT', `${V4}/room/${token}`, { as: as('ann'), body: { roomName: 'Posts 2' } })).status, 200);
      await expectUnread(token, { ann: 1, ben: 0, cat: 3 });
    });

    it('the answer of POST read carries the count that matches its marker; marker 0 (-2) counts everything', async () => {
      const token = await groupRoom('Markers');
      const ids = [];
      for (let i = 0; i < 5; i++) ids.push(await t.say(token, 'ann', `m${i}`));
      const mid = await readTo(token, 'ben', ids[1]);
      assert.equal(mid.lastReadMessage, ids[1]);
      assert.equal(mid.unreadMessages, 3);
      await expectUnread(token, { ben: 3 });
      const all = await readTo(token, 'ben', null);
      assert.equal(all.unreadMessages, 0);
      const first = await readTo(token, 'ben', 0);
      assert.equal(first.lastReadMessage, -2);
      assert.equal(first.unreadMessages, 5);
      await expectUnread(token, { ben: 5, cat: 5 });
      // Backwards and forwards again.
      assert.equal((await readTo(token, 'ben', ids[3])).unreadMessages, 1);
      assert.equal((await readTo(token, 'ben', ids[0])).unreadMessages, 4);
      await expectUnread(token, { ben: 4 });
    });

    it('DELETE read marks the last chat message unread: 1', async () => {
      const token = await groupRoom('Mark unread');
      await t.say(token, 'ann', 'a');
      await t.say(token, 'ann', 'b');
      await readTo(token, 'cat');
      const r = await t.call('DELETE', `${V1}/chat/${token}/read`, { as: as('cat') });
      assert.equal(r.status, 200);
      assert.equal(r.data.unreadMessages, 1);
      await expectUnread(token, { cat: 1 });
    });

    it('receiving with setReadMarker moves the count with the marker', async () => {
      const token = await groupRoom('Receive');
      const a = await t.say(token, 'ann', 'a');
      await t.say(token, 'ann', 'b');
      await t.say(token, 'ann', 'c');
      const r = await t.call('GET', `${V1}/chat/${token}`, { as: as('ben'), query: { lookIntoFuture: 1, lastKnownMessageId: a, timeout: 0 } });
      assert.equal(r.status, 200);
      await expectUnread(token, { ben: 2, cat: 3 });
    });

    it('deleting a message takes it out of the count of those who had not read it, and of nobody else', async () => {
      const token = await groupRoom('Deletes');
      const a = await t.say(token, 'ann', 'a');
      const b = await t.say(token, 'ann', 'b');
      await t.say(token, 'ann', 'c');
      await readTo(token, 'ben', b); // ben read a and b; cat read nothing
      await expectUnread(token, { ann: 0, ben: 1, cat: 3 });
      assert.equal((await t.call('DELETE', `${V1}/chat/${token}/${a}`, { as: as('ann') })).status, 200);
      await expectUnread(token, { ann: 0, ben: 1, cat: 2 });
      // Deleting it again changes nothing (it no longer counts).
      const again = await t.call('DELETE', `${V1}/chat/${token}/${a}`, { as: as('ann') });
      assert.deepEqual([again.status, again.data?.error], [405, 'message'], `a deleted message is no longer a text message: ${again.text}`);
      await expectUnread(token, { ann: 0, ben: 1, cat: 2 });
      // A marker set after a deletion counts the remaining messages only.
      assert.equal((await readTo(token, 'cat', a)).unreadMessages, 2);
      assert.equal((await readTo(token, 'cat', 0)).unreadMessages, 2);
      await expectUnread(token, { cat: 2 });
    });

    it('clearing the history starts every count over', async () => {
      const token = await groupRoom('Clear');
      await t.say(token, 'ann', 'a');
      await t.say(token, 'ben', 'b');
      await expectUnread(token, { ann: 1, ben: 0, cat: 2 });
      assert.equal((await t.call('DELETE', `${V1}/chat/${token}`, { as: as('ann') })).status, 200);
      // Every marker is -2 (Talk's resetChatDetails): history_cleared reads as everyone's one unread message.
      await expectUnread(token, { ann: 1, ben: 1, cat: 1 });
      for (const who of ['ann', 'ben', 'cat']) assert.equal((await record(token, who)).lastReadMessage, -2);
      await t.say(token, 'cat', 'after');
      await expectUnread(token, { ann: 1, ben: 1, cat: 0 });
    });

    it('a poll counts as a chat message; an attendee added later has read what was there', async () => {
      const token = await groupRoom('Polls');
      const p = await t.call('POST', `${V1}/poll/${token}`, { as: as('ann'), body: { question: 'Q?', options: ['x', 'y'] } });
      assert.equal(p.status, 201, p.text);
      await t.say(token, 'ben', 'hi');
      await seedUser(t.p, token, 'dan');
      await expectUnread(token, { ben: 0, cat: 2, dan: 0 });
      await t.say(token, 'ben', 'and you?');
      await expectUnread(token, { ben: 0, cat: 3, dan: 1 });
    });

    it('expired messages leave the count when they expire, before the job; the job keeps it right', async () => {
      const token = await groupRoom('Expiring');
      await t.say(token, 'ann', 'kept');
      assert.equal((await t.call('POST', `${V4}/room/${token}/message-expiration`, { as: as('ann'), body: { seconds: 2 } })).status, 200);
      const gone = await t.say(token, 'ann', 'gone 1');
      await t.say(token, 'ann', 'gone 2');
      await readTo(token, 'ben', gone); // ben read one of the two expiring messages
      await expectUnread(token, { ben: 1, cat: 3 });
      await sleep(3100);
      await expectUnread(token, { ann: 0, ben: 0, cat: 1 });
      const job = jobs.find((j) => j.name === 'message-expiration')!;
      const out = await runJobIfDue(t.p.services, job, true);
      assert.equal(out.status, 'ok', out.error);
      await expectUnread(token, { ann: 0, ben: 0, cat: 1 });
      // After the job, markers and posts count as before.
      assert.equal((await t.call('POST', `${V4}/room/${token}/message-expiration`, { as: as('ann'), body: { seconds: 0 } })).status, 200);
      await t.say(token, 'ann', 'new');
      await expectUnread(token, { ben: 1, cat: 2 });
      assert.equal((await readTo(token, 'cat', 0)).unreadMessages, 2);
      const room = (await roomRow(t.p, token))!;
      assert.equal(room.next_expiry, 0, 'nothing left to expire');
    });

    it('mention flags: @all sets unreadMention only, @user both; reading clears them, a deleted mention keeps them until read', async () => {
      const token = await groupRoom('Mentions');
      await t.say(token, 'ann', 'hey @all');
      let ben = await record(token, 'ben');
      assert.equal(ben.unreadMention, true);
      assert.equal(ben.unreadMentionDirect, false);
      const direct = await t.say(token, 'ann', 'and you @ben');
      ben = await record(token, 'ben');
      assert.equal(ben.unreadMention, true);
      assert.equal(ben.unreadMentionDirect, true);
      assert.equal(ben.unreadMessages, 2);
      assert.equal((await t.call('DELETE', `${V1}/chat/${token}/${direct}`, { as: as('ann') })).status, 200);
      ben = await record(token, 'ben');
      assert.equal(ben.unreadMessages, 1);
      assert.equal(ben.unreadMentionDirect, true, 'Talk does not reset the mention marker of a deleted message');
      const read = await readTo(token, 'ben');
      assert.equal(read.unreadMention, false);
      assert.equal(read.unreadMentionDirect, false);
      assert.equal(read.unreadMessages, 0);
    });

    it('the migration backfills the counters from the messages', async () => {
      const token = await groupRoom('Backfill');
      const a = await t.say(token, 'ann', 'a');
      await t.say(token, 'ann', 'b');
      await t.say(token, 'ben', 'c');
      await readTo(token, 'cat', a);
      const db = t.p.services.db.kysely;
      const room = (await roomRow(t.p, token))!;
      // What a database migrated before the counters looks like: no counters, and the columns gone.
      await db.updateTable('rooms').set({ chat_count: 0 }).where('id', '=', room.id).execute();
      await db.updateTable('attendees').set({ read_count: 0 }).where('room_id', '=', room.id).execute();
      // The record revisions came later (0711): off first, back after, so that every column
      // comes back in its migrated place (this process's statements read rows by position).
      const sqlDialect = dialect === 'postgres' ? 'postgres' : 'sqlite';
      // The SQLite change feed's update triggers read `rev` too (0712): off and back the same way.
      const revTables = ['rooms', 'attendees', 'chat_messages'] as const;
      // The pins (0719) came after all of these, on all three tables, and the scheduled messages'
      // attendee column (0720) and the deleter's name (0750) after them.
      // The federated conversations' columns (0910) came last of all on rooms but the
      // federation flag (0920), which goes first and comes back last.
      await dropHasFederationColumn(db);
      await db.schema.dropIndex('rooms_remote').execute();
      for (const column of ['remote_token', 'remote_server']) await db.schema.alterTable('rooms').dropColumn(column).execute();
      await db.schema.alterTable('federation_invitations').dropColumn('local_room_id').execute();
      await dropDeletedByNameColumn(db);
      await dropScheduledMessagesColumn(db);
      await dropPinnedMessages(db);
      for (const table of revTables) {
        await sql.raw(sqlDialect === 'postgres' ? `drop trigger parley_rev on ${table}` : `drop trigger ${table}_rev`).execute(db);
        if (sqlDialect === 'sqlite') await sql.raw(`drop trigger ${table}_feed_update`).execute(db);
        await db.schema.alterTable(table).dropColumn('rev').execute();
      }
      // So are the conversation marks (0717), the columns after them on attendees.
      for (const column of ['archived', 'important', 'sensitive']) await db.schema.alterTable('attendees').dropColumn(column).execute();
      await db.schema.dropIndex('attendees_common_read').execute();
      await db.schema.alterTable('attendees').dropColumn('read_count').execute();
      await db.schema.alterTable('rooms').dropColumn('next_expiry').execute();
      await db.schema.alterTable('rooms').dropColumn('chat_count').execute();
      await chatUnreadCounters.up({ db, dialect: sqlDialect });
      await recordRevisions.up({ db, dialect: sqlDialect });
      if (sqlDialect === 'sqlite') for (const table of revTables) await createRevTableUpdateFeed(db, table);
      await attendeeConversationMarks.up({ db, dialect: sqlDialect });
      await pinnedMessages.up({ db, dialect: sqlDialect });
      await addScheduledMessagesColumn(db);
      await addDeletedByNameColumn(db);
      await federatedRooms.up({ db, dialect: sqlDialect });
      await addHasFederationColumn(db);
      await expectUnread(token, { ann: 1, ben: 0, cat: 2 });
    });

    it('GET /room costs the same statements with no unread message and with many', async () => {
      await createUser(t.p, 'lister');
      const tokens: string[] = [];
      for (let i = 0; i < 5; i++) {
        const room = await createRoom(t.p, 'ann', { roomType: RoomType.GROUP, roomName: `L${i}` });
        await seedUser(t.p, room.token, 'lister');
        tokens.push(room.token);
      }
      const anyWrite = () =>
        t.p.services.db.kysely
          .updateTable('users')
          .set({ display_name: sql`display_name` })
          .where('id', '=', 'lister')
          .execute();
      const list = async () => {
        await anyWrite(); // no rendered answer may be reused
        return countQueries(t.p, () => t.call('GET', `${V4}/room`, { as: as('lister') }));
      };
      for (const token of tokens) await readTo(token, 'lister');
      await list(); // warm: what a first request of a user loads once (throttles, preferences)
      // Again: the first request's automatic online status is a write to user_status, which the
      // PostgreSQL read cache then reads once more (docs/architecture.md "Read cache").
      await list();
      const none = await list();
      for (const token of tokens) for (let i = 0; i < 40; i++) await t.say(token, 'ann', `msg ${i}`);
      assert.equal(await listed(tokens[0], 'lister'), 40);
      const many = await list();
      assert.equal(many, none, `GET /room used ${none} statements with 0 unread messages and ${many} with 200`);
    });
  });
}
