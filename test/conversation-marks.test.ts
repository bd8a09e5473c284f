/**
 * The caller's own marks on a conversation (docs/reference/capabilities-and-config.md#features and docs/reference/conversations.md#the-conversation-record): POST/DELETE
 * /room/{token}/archive, /important and /sensitive set `isArchived`, `isImportant` and
 * `isSensitive` for the caller alone, move the caller's last_attendee_activity (so GET /room with
 * modifiedSince returns the conversation to the caller only), and answer the record in JSON and
 * XML. A sensitive conversation's chat notifications and upcoming reminders leave the message out,
 * as Talk's Notifier and getUpcomingReminders do. Who may call them (guests 401 `guest`, strangers
 * 404) and bad tokens are in the tables of statuses-by-caller, conversations-who-may and
 * conversations-bad-input. The same on SQLite and PostgreSQL.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects } from './helpers/parley.js';
import { attendeesOf, createRoom, NO_THROTTLE, seedUser, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';
const NOTES = '/apps/notifications/api/v2/notifications';
const FUTURE = 2133349024;
const MARKS = [
  ['/archive', 'isArchived', 'archived'],
  ['/important', 'isImportant', 'important'],
  ['/sensitive', 'isSensitive', 'sensitive'],
] as const;

for (const dialect of dialects()) {
  describe(`conversation marks: archive, important, sensitive [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE });
    let token: string;
    before(async () => {
      for (const u of ['alice', 'bob']) await createUser(t.p, u, { displayName: u.toUpperCase() });
      token = (await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Marked' })).token;
      await seedUser(t.p, token, 'bob');
    });
    const mark = (method: string, path: string, who: string, opts: Record<string, unknown> = {}) =>
      t.call(method, `${V4}/room/${token}${path}`, { as: as(who), ...opts });
    const record = async (who: string) => (await t.call('GET', `${V4}/room/${token}`, { as: as(who) })).data;

    for (const [path, field, column] of MARKS) {
      it(`${path}: POST sets ${field} for the caller only, DELETE clears it; each answers the record`, async () => {
        assert.equal((await record('bob'))[field], false);
        const on = await mark('POST', path, 'bob');
        assert.equal(on.status, 200, on.text);
        assert.equal(on.data.token, token);
        assert.equal(on.data[field], true);
        assert.equal((await record('bob'))[field], true);
        assert.equal((await record('alice'))[field], false, 'another member keeps their own');
        const list = (await t.call('GET', `${V4}/room`, { as: as('bob') })).data.find((r: any) => r.token === token);
        assert.equal(list[field], true, 'GET /room shows it too');
        // A second POST changes nothing and answers the same.
        assert.equal((await mark('POST', path, 'bob')).data[field], true);
        const off = await mark('DELETE', path, 'bob');
        assert.equal(off.status, 200, off.text);
        assert.equal(off.data[field], false);
        assert.equal((await attendeesOf(t.p, token)).find((a) => a.actor_id === 'bob')![column], 0);
      });
    }

    it('a mark moves the caller’s last_attendee_activity: modifiedSince returns the conversation to the caller alone', async () => {
      await t.p.services.db.kysely.updateTable('attendees').set({ last_attendee_activity: 100 }).execute();
      await t.p.services.db.kysely.updateTable('rooms').set({ last_activity: 100 }).execute();
      const since = Math.floor(Date.now() / 1000);
      assert.equal((await mark('POST', '/archive', 'bob')).status, 200);
      const tokens = async (who: string) => (await t.call('GET', `${V4}/room`, { as: as(who), query: { modifiedSince: since } })).data.map((r: any) => r.token);
      assert.deepEqual(await tokens('bob'), [token]);
      assert.deepEqual(await tokens('alice'), []);
      await mark('DELETE', '/archive', 'bob');
    });

    it('XML and v1 answer the record with the mark', async () => {
      const x = await mark('POST', '/important', 'bob', { format: 'xml' });
      assert.equal(x.status, 200);
      assert.match(x.text, /<isImportant>1<\/isImportant>/);
      const v1 = await mark('DELETE', '/important', 'bob', { version: 1 });
      assert.equal(v1.status, 200);
      assert.equal(v1.meta.statuscode, 100);
      assert.equal(v1.data.isImportant, false);
    });

    it('sensitive: chat notifications and upcoming reminders leave the message out, and have it again once unmarked', async () => {
      const sent = await t.call('POST', `${V1}/chat/${token}`, { as: as('alice'), body: { message: 'Secret plans for @bob' } });
      assert.equal(sent.status, 201, sent.text);
      const id = sent.data.id;
      assert.equal((await t.call('POST', `${V1}/chat/${token}/${id}/reminder`, { as: as('bob'), body: { timestamp: FUTURE } })).status, 201);
      const mention = async () =>
        ((await t.call('GET', NOTES, { as: as('bob') })).data as any[]).find((n) => n.object_type === 'chat' && n.object_id.startsWith(token));
      const upcoming = async () => ((await t.call('GET', `${V1}/chat/upcoming-reminders`, { as: as('bob') })).data as any[]).find((r) => r.messageId === id);

      let n = await mention();
      assert.equal(n.object_id, `${token}/${id}`);
      assert.match(n.message, /Secret plans/);
      assert.match((await upcoming()).message, /Secret plans/);

      assert.equal((await mark('POST', '/sensitive', 'bob')).status, 200);
      n = await mention();
      assert.equal(n.subjectRich, '{user} mentioned you in conversation {call}', 'the subject stays');
      assert.equal(n.object_id, token, 'no message id');
      assert.deepEqual([n.message, n.messageRich, n.messageRichParameters], ['', '', []]);
      assert.equal(n.link.endsWith(`#message_${id}`), true, 'the link still leads to the message');
      const u = await upcoming();
      assert.deepEqual([u.message, u.messageParameters, u.actorId], ['', [], 'alice']);
      // Alice did not mark it: her view of the conversation is unchanged.
      assert.equal((await record('alice')).isSensitive, false);

      assert.equal((await mark('DELETE', '/sensitive', 'bob')).status, 200);
      assert.match((await mention()).message, /Secret plans/);
      assert.match((await upcoming()).message, /Secret plans/);
    });

    it('the capabilities advertise the three features, also as local', async () => {
      const spreed = (await t.call('GET', '/cloud/capabilities', { as: as('alice') })).data.capabilities.spreed;
      for (const f of ['archived-conversations-v2', 'important-conversations', 'sensitive-conversations']) {
        assert.ok(spreed.features.includes(f), f);
        assert.ok(spreed['features-local'].includes(f), `${f} local`);
      }
    });
  });
}
