/**
 * A shared file's caption is parsed like a chat message (docs/reference/files.md#talkmetadata):
 * its mentions become `mention-…` parameters beside `actor` and `file`, notify the mentioned
 * users and mark them mentioned, an edit of the caption re-parses them, and a silent share
 * notifies nobody. SQLite and PostgreSQL.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, basic, dialects, passwordOf } from './helpers/parley.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const SHARES = '/apps/files_sharing/api/v1/shares';
const CHAT = '/apps/spreed/api/v1/chat';
const NOTES = '/apps/notifications/api/v2/notifications';

for (const dialect of dialects()) {
  describe(`mentions in a shared file's caption [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob', 'carol'], env: { BRUTE_FORCE_DELAY_MS: '0', BRUTE_FORCE_MAX_ATTEMPTS: '1000' } });
    let room: { token: string };
    const auth = (user: string) => ({ Authorization: basic(user, passwordOf(user)) });
    async function upload(user: string, path: string, body: string) {
      const res = await fetch(`${t.p.url}/remote.php/dav/files/${user}/${path}`, { method: 'PUT', body, headers: auth(user) });
      assert.ok(res.status === 201 || res.status === 204, `upload ${res.status}`);
    }
    const share = (user: string, path: string, talkMetaData: Record<string, unknown>) =>
      t.call('POST', SHARES, { as: as(user), body: { shareType: 10, shareWith: room.token, path, talkMetaData: JSON.stringify(talkMetaData) } });
    /** The user's notifications of one message. */
    const notesOf = async (user: string, messageId: number) =>
      ((await t.call('GET', NOTES, { as: as(user) })).data as any[]).filter((n) => n.object_type === 'chat' && n.object_id === `${room.token}/${messageId}`);
    const roomOf = async (user: string) => (await t.call('GET', `/apps/spreed/api/v4/room/${room.token}`, { as: as(user) })).data;

    before(async () => {
      room = (await t.newRoom('alice', { type: RoomType.GROUP, name: 'Captions', members: ['bob', 'carol'] })).record;
      // carol hears of mentions only, so any notification she gets is one.
      assert.equal((await t.call('POST', `/apps/spreed/api/v4/room/${room.token}/notify`, { as: as('carol'), body: { level: 2 } })).status, 200);
    });

    it('mentions in a caption are parameters, notify the mentioned user and mark them mentioned', async () => {
      await upload('alice', 'plan.txt', 'plan');
      const r = await share('alice', 'plan.txt', { caption: 'For you @bob, not @nobody' });
      assert.equal(r.status, 200, r.text);
      const [m] = await t.history(room.token, 'bob', 1);
      assert.equal(m.message, 'For you {mention-user1}, not @nobody');
      assert.deepEqual(Object.keys(m.messageParameters).sort(), ['actor', 'file', 'mention-user1']);
      assert.equal(m.messageParameters['mention-user1'].type, 'user');
      assert.equal(m.messageParameters['mention-user1'].id, 'bob');
      assert.equal(m.messageParameters.file.name, 'plan.txt');
      const [note] = await notesOf('bob', m.id);
      assert.ok(note, 'bob is notified');
      assert.match(note.subject, /mentioned you/);
      assert.equal((await notesOf('carol', m.id)).length, 0, 'carol was not mentioned');
      assert.equal((await roomOf('bob')).unreadMention, true);
      assert.equal((await roomOf('carol')).unreadMention, false);

      // An edit of the caption re-parses it: carol is mentioned now.
      const edit = await t.call('PUT', `${CHAT}/${room.token}/${m.id}`, { as: as('alice'), body: { message: 'Now @carol' } });
      assert.equal(edit.status, 200, edit.text);
      assert.equal(edit.data.parent.message, 'Now {mention-user1}');
      assert.equal(edit.data.parent.messageParameters['mention-user1'].id, 'carol');
      assert.equal(edit.data.parent.messageParameters.file.name, 'plan.txt', 'the file stays');
      assert.ok((await notesOf('carol', m.id)).length > 0, 'carol is told of the added mention');
    });

    it('a reply caption notifies the replied-to author; a silent share notifies nobody, mentioned or not', async () => {
      const sent = await t.call('POST', `${CHAT}/${room.token}`, { as: as('carol'), body: { message: 'Send me the file' } });
      await upload('alice', 'file.txt', 'file');
      const r = await share('alice', 'file.txt', { caption: 'Here', replyTo: sent.data.id });
      assert.equal(r.status, 200, r.text);
      const [reply] = await t.history(room.token, 'carol', 1);
      assert.equal(reply.parent.id, sent.data.id);
      assert.ok((await notesOf('carol', reply.id)).length > 0, 'carol is told of the reply');

      await upload('alice', 'quiet.txt', 'quiet');
      const quiet = await share('alice', 'quiet.txt', { caption: 'Psst @bob @carol', silent: true });
      assert.equal(quiet.status, 200, quiet.text);
      const [m] = await t.history(room.token, 'bob', 1);
      assert.equal(m.silent, true);
      assert.equal(m.messageParameters['mention-user2'].id, 'carol', 'still parsed');
      assert.equal((await notesOf('bob', m.id)).length, 0);
      assert.equal((await notesOf('carol', m.id)).length, 0);
    });
  });
}
