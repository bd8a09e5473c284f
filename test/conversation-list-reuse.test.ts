/**
 * GET /room's kept records (services/conversations/conversation-list.ts, migration 0711-record-revisions): a
 * record rendered once is sent again only while every row it was made of is unchanged, so each
 * kind of write that changes what a record shows must show up in the next list, whichever row
 * it lands in: the room, the caller's attendee row, the last message (edit, reaction), another
 * member's read marker (lastCommonReadMessage), the last message's author (display name), the
 * configuration. The suites run with VERIFY_KEPT_RECORDS, which also compares every reuse
 * with a fresh rendering; here each change is asserted by value.
 *
 * Cost: once kept, a list costs the same statements whatever happens in other conversations,
 * with 1 or 40 conversations, and fewer than rendering them. Across processes the revisions
 * are in the database: a change made through one process shows in a list another process kept.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { loadSettings, SettingsError } from '../src/settings.js';
import { admin, as, basic, dialects, type DialectName } from './helpers/parley.js';
import { RoomType, useParley, V4 } from './helpers/fixtures.js';
import { ocs, TWO_PROCESS_PASSWORD, useTwoProcesses } from './helpers/processes.js';
import { countQueries } from './helpers/rooms.js';

const V1 = '/apps/spreed/api/v1';
const CONFIG = '/apps/provisioning_api/api/v1/config/apps/spreed';

for (const dialect of dialects()) {
  describe(`GET /room reuses a record only while its rows are unchanged [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob', 'carol'] });
    let token = '';
    let other = '';

    const list = async (who = 'alice') => {
      const r = await t.call('GET', `${V4}/room`, { as: as(who) });
      assert.equal(r.status, 200, r.text);
      return r.data as any[];
    };
    const record = async (who = 'alice') => {
      const found = (await list(who)).find((c) => c.token === token);
      assert.ok(found, 'the conversation is listed');
      return found;
    };

    before(async () => {
      token = (await t.newRoom('alice', { name: 'Reused', members: ['bob', 'carol'] })).token;
      other = (await t.newRoom('carol', { name: 'Elsewhere' })).token;
    });

    it('shows a message, its edit and a reaction on it (the last message row)', async () => {
      await record(); // kept
      const id = await t.say(token, 'bob', 'first words');
      let r = await record();
      assert.equal(r.lastMessage.message, 'first words');
      assert.equal(r.unreadMessages, 1);
      const edit = await t.call('PUT', `${V1}/chat/${token}/${id}`, { as: as('bob'), body: { message: 'better words' } });
      assert.equal(edit.status, 200, edit.text);
      // The edit posts a system message too; the edited message itself is no longer the last,
      // so answer the edit on a message that stays last: a reaction to the newest comment.
      const id2 = await t.say(token, 'bob', 'react to me');
      assert.deepEqual((await record()).lastMessage.reactions, {});
      const react = await t.call('POST', `${V1}/reaction/${token}/${id2}`, { as: as('carol'), body: { reaction: '👍' } });
      assert.equal(react.status, 201, react.text);
      r = await record();
      assert.equal(r.lastMessage.id, id2);
      assert.deepEqual(r.lastMessage.reactions, { '👍': 1 });
    });

    it("shows another member's read marker (lastCommonReadMessage) and the caller's own", async () => {
      const id = await t.say(token, 'alice', 'read me');
      for (const who of ['bob', 'carol']) {
        const read = await t.call('POST', `${V1}/chat/${token}/read`, { as: as(who), body: { lastReadMessage: id } });
        assert.equal(read.status, 200, read.text);
      }
      const r = await record();
      assert.equal(r.lastReadMessage, id);
      assert.equal(r.unreadMessages, 0);
      assert.equal(r.lastCommonReadMessage, id);
      const later = await t.say(token, 'bob', 'one more');
      assert.equal((await record()).unreadMessages, 1);
      assert.equal((await record()).lastCommonReadMessage, id, 'alice has not read it');
      const read = await t.call('POST', `${V1}/chat/${token}/read`, { as: as('alice'), body: { lastReadMessage: later } });
      assert.equal(read.status, 200, read.text);
      const mine = await record();
      assert.equal(mine.unreadMessages, 0);
      assert.equal(mine.lastReadMessage, later);
    });

    it("shows the last message's author under a new display name", async () => {
      await t.say(token, 'bob', 'by bob');
      assert.equal((await record()).lastMessage.actorDisplayName, 'bob');
      const rename = await t.call('PUT', '/cloud/users/bob', { as: admin, form: { key: 'displayname', value: 'Robert' } });
      assert.equal(rename.status, 200, rename.text);
      assert.equal((await record()).lastMessage.actorDisplayName, 'Robert');
    });

    it('shows changes of the room row and of the caller attendee row', async () => {
      await record();
      assert.equal((await t.call('PUT', `${V4}/room/${token}`, { as: as('alice'), body: { roomName: 'Renamed' } })).status, 200);
      assert.equal((await record()).displayName, 'Renamed');
      assert.equal((await t.call('POST', `${V4}/room/${token}/favorite`, { as: as('bob') })).status, 200);
      assert.equal((await record('bob')).isFavorite, true);
      assert.equal((await record()).isFavorite, false, "bob's favorite is his own");
      const promote = await t.call('POST', `${V4}/room/${token}/moderators`, { as: as('alice'), body: { attendeeId: (await record('bob')).attendeeId } });
      assert.equal(promote.status, 200, promote.text);
      assert.equal((await record('bob')).participantType, 2);
    });

    it('shows a change of the configuration (canStartCall follows start_calls)', async () => {
      assert.equal((await record('bob')).canStartCall, true);
      const set = await t.call('POST', `${CONFIG}/start_calls`, { as: admin, body: { value: '2' } });
      assert.equal(set.status, 200, set.text);
      try {
        // 2: only moderators start calls; bob is a moderator now, carol is not.
        assert.equal((await record('carol')).canStartCall, false);
        assert.equal((await record('bob')).canStartCall, true);
      } finally {
        await t.call('DELETE', `${CONFIG}/start_calls`, { as: admin });
      }
      assert.equal((await record('carol')).canStartCall, true);
    });

    it("shows the other user's new display name and status in a one-to-one", async () => {
      const dana = (await t.newUser('dana', { displayName: 'Dana' })).id;
      const oneToOne = (await t.newRoom('alice', { type: RoomType.ONE_TO_ONE, invite: dana })).token;
      const mine = async () => {
        const r = await t.call('GET', `${V4}/room`, { as: as('alice'), query: { includeStatus: 'true' } });
        assert.equal(r.status, 200, r.text);
        return (r.data as any[]).find((c) => c.token === oneToOne);
      };
      await mine();
      assert.equal((await mine()).displayName, 'Dana');
      const rename = await t.call('PUT', `/cloud/users/${dana}`, { as: admin, form: { key: 'displayname', value: 'Dana Scully' } });
      assert.equal(rename.status, 200, rename.text);
      assert.equal((await mine()).displayName, 'Dana Scully');
      const dnd = await t.call('PUT', '/apps/user_status/api/v1/user_status/status', { as: as(dana), body: { statusType: 'dnd' } });
      assert.equal(dnd.status, 200, dnd.text);
      assert.equal((await mine()).status, 'dnd');
      const away = await t.call('PUT', '/apps/user_status/api/v1/user_status/status', { as: as(dana), body: { statusType: 'away' } });
      assert.equal(away.status, 200, away.text);
      assert.equal((await mine()).status, 'away');
    });

    it('costs the same statements whatever is written elsewhere and however many conversations, fewer than rendering', async () => {
      const user = (await t.newUser()).id;
      const rooms = [(await t.newRoom(user, { name: 'only one' })).token];
      const writeElsewhere = () => t.say(other, 'carol', 'elsewhere');
      const counts = async () => {
        await list(user);
        await writeElsewhere();
        await list(user); // credentials, configuration and statuses reload once after a write
        await writeElsewhere();
        return countQueries(t.p, () => list(user));
      };
      const one = await counts();
      for (let i = 1; i < 40; i++) rooms.push((await t.newRoom(user, { name: `room ${i}` })).token);
      const many = await counts();
      assert.equal(many, one, 'statements of a list of kept records: 1 and 40 conversations');
      // Every record changed (one message in each): rendering them costs more statements.
      for (const r of rooms) await t.say(r, user, 'changed');
      const rendered = await countQueries(t.p, () => list(user));
      assert.ok(rendered > many, `rendering (${rendered}) costs more than reusing (${many})`);
      const n = (await list(user)).length;
      assert.equal(n, 40);
    });
  });
}

for (const dialect of dialects()) {
  describe(`the check of kept records (VERIFY_KEPT_RECORDS) fails a stale reuse [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice'] });

    it('a room renamed without its revision moving is answered 500 instead of the old record', async () => {
      const token = (await t.newRoom('alice', { name: 'Before' })).token;
      const list = () => t.call('GET', `${V4}/room`, { as: as('alice') });
      assert.equal((await list()).status, 200);
      assert.equal((await list()).data[0].displayName, 'Before', 'kept');
      // What a writer that bypassed the revision would leave: the trigger off for one update.
      const db = t.services.db.kysely;
      if (dialect === 'postgres') await sql`alter table rooms disable trigger parley_rev`.execute(db);
      else await sql`drop trigger rooms_rev`.execute(db);
      try {
        await db.updateTable('rooms').set({ name: 'After' }).where('token', '=', token).execute();
      } finally {
        if (dialect === 'postgres') await sql`alter table rooms enable trigger parley_rev`.execute(db);
        else {
          await sql`CREATE TRIGGER rooms_rev AFTER UPDATE ON rooms FOR EACH ROW WHEN NEW.rev = OLD.rev
            BEGIN UPDATE rooms SET rev = OLD.rev + 1 WHERE id = NEW.id; END`.execute(db);
        }
      }
      assert.equal((await list()).status, 500, 'the stale record was not caught');
      // Any real write to the room moves the revision again, and the list is right.
      assert.equal((await t.call('PUT', `${V4}/room/${token}`, { as: as('alice'), body: { roomName: 'Again' } })).status, 200);
      const r = await list();
      assert.equal(r.status, 200);
      assert.equal(r.data[0].displayName, 'Again');
    });
  });
}

describe('VERIFY_KEPT_RECORDS setting', () => {
  it('is off by default, takes true or false and refuses anything else naming the variable', () => {
    assert.equal(loadSettings({}).verifyKeptRecords, false);
    assert.equal(loadSettings({ VERIFY_KEPT_RECORDS: 'true' }).verifyKeptRecords, true);
    assert.throws(
      () => loadSettings({ VERIFY_KEPT_RECORDS: 'maybe' }),
      (e: unknown) => e instanceof SettingsError && e.message.includes('VERIFY_KEPT_RECORDS'),
    );
  });
});

// Two processes, one database: the revisions are read from the database by every process.
for (const dialect of dialects() as DialectName[]) {
  describe(`a record kept by one process shows a change made through another [${dialect}]`, () => {
    const procs = useTwoProcesses(dialect, ['alice', 'bob']);
    const PASSWORD = TWO_PROCESS_PASSWORD;

    it('renamed, messaged and read through B, listed by A', async () => {
      const alice = basic('alice', PASSWORD);
      const bob = basic('bob', PASSWORD);
      const created = await ocs(procs.a(), 'POST', `${V4}/room`, alice, { roomType: String(RoomType.GROUP), roomName: 'Two processes' });
      assert.equal(created.status, 201, JSON.stringify(created.data));
      const token = created.data.token as string;
      const added = await ocs(procs.a(), 'POST', `${V4}/room/${token}/participants`, alice, { newParticipant: 'bob', source: 'users' });
      assert.equal(added.status, 200, JSON.stringify(added.data));
      const mine = async () => ((await ocs(procs.a(), 'GET', `${V4}/room`, alice)).data as any[]).find((c) => c.token === token);
      for (let i = 0; i < 3; i++) assert.equal((await mine()).displayName, 'Two processes');
      assert.equal((await ocs(procs.b(), 'PUT', `${V4}/room/${token}`, alice, { roomName: 'Renamed on B' })).status, 200);
      assert.equal((await mine()).displayName, 'Renamed on B');
      const sent = await ocs(procs.b(), 'POST', `${V1}/chat/${token}`, bob, { message: 'from B' });
      assert.equal(sent.status, 201);
      let r = await mine();
      assert.equal(r.lastMessage.message, 'from B');
      assert.equal(r.unreadMessages, 1);
      assert.equal((await ocs(procs.b(), 'POST', `${V1}/chat/${token}/read`, alice, { lastReadMessage: String(sent.data.id) })).status, 200);
      r = await mine();
      assert.equal(r.unreadMessages, 0);
      assert.equal(r.lastReadMessage, sent.data.id);
    });
  });
}
