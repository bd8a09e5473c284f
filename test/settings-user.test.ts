/**
 * POST /apps/spreed/api/v1/settings/user (contract "Settings"; docs/reference/capabilities-and-config.md#user-settings): each key,
 * every status, bad input stores nothing, effective values show in capabilities.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, type Parley } from './helpers/parley.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

const PATH = '/apps/spreed/api/v1/settings/user';

async function capsOf(p: Parley, user: string): Promise<any> {
  const r = await call(p, 'GET', '/cloud/capabilities', { as: as(user) });
  assert.equal(r.status, 200);
  return r.data.capabilities.spreed;
}

async function prefs(p: Parley, user: string): Promise<Record<string, string>> {
  return Object.fromEntries(await p.services.preferences.forUser(user));
}

for (const dialect of dialects()) {
  describe(`POST /settings/user [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob'] });

    it('401 for an anonymous caller, nothing stored', async () => {
      const r = await t.call('POST', PATH, { body: { key: 'play_sounds', value: 'no' } });
      assert.equal(r.status, 401);
      assert.equal(r.meta.statuscode, 997);
    });

    it('401 for wrong credentials', async () => {
      const r = await t.call('POST', PATH, { as: { user: 'alice', password: 'nope' }, body: { key: 'play_sounds', value: 'no' } });
      assert.equal(r.status, 401);
      assert.deepEqual(await prefs(t.p, 'alice'), {});
    });

    it('play_sounds: yes/no stored, shown in capabilities as call.play-sounds', async () => {
      assert.equal((await capsOf(t.p, 'alice')).config.call['play-sounds'], true);
      const r = await t.call('POST', PATH, { as: as('alice'), body: { key: 'play_sounds', value: 'no' } });
      assert.equal(r.status, 200);
      assert.equal(r.data, null);
      assert.equal((await prefs(t.p, 'alice')).play_sounds, 'no');
      assert.equal((await capsOf(t.p, 'alice')).config.call['play-sounds'], false);
      // Another user keeps the default.
      assert.equal((await capsOf(t.p, 'bob')).config.call['play-sounds'], true);
    });

    it('play_sounds: other values are 400 value, nothing changed', async () => {
      for (const value of ['true', 'YES', '1', '', 'maybe']) {
        const r = await t.call('POST', PATH, { as: as('alice'), body: { key: 'play_sounds', value } });
        assert.equal(r.status, 400, value);
        assert.equal(r.data.error, 'value');
      }
      assert.equal((await prefs(t.p, 'alice')).play_sounds, 'no');
    });

    it('typing_privacy: 0/1 as int or string; others 400', async () => {
      let r = await t.call('POST', PATH, { as: as('alice'), body: { key: 'typing_privacy', value: 1 } });
      assert.equal(r.status, 200);
      assert.equal((await capsOf(t.p, 'alice')).config.chat['typing-privacy'], 1);
      r = await t.call('POST', PATH, { as: as('alice'), form: { key: 'typing_privacy', value: '0' } });
      assert.equal(r.status, 200);
      assert.equal((await capsOf(t.p, 'alice')).config.chat['typing-privacy'], 0);
      for (const value of [2, -1, 'private', '01', '', 1.5]) {
        r = await t.call('POST', PATH, { as: as('alice'), body: { key: 'typing_privacy', value } });
        assert.equal(r.status, 400, String(value));
        assert.equal(r.data.error, 'value');
      }
      assert.equal((await prefs(t.p, 'alice')).typing_privacy, '0');
    });

    it('read_status_privacy: 0/1 stored and copied onto the user’s attendee rows', async () => {
      const db = t.p.services.db.kysely;
      const room = await db
        .insertInto('rooms')
        .values({ token: 'abcdefgh', name: 'r', type: 2 } as any)
        .returning('id')
        .executeTakeFirstOrThrow();
      const base = { room_id: Number(room.id), actor_type: 'users', participant_type: ParticipantType.USER } as any;
      await db
        .insertInto('attendees')
        .values([
          { ...base, actor_id: 'alice' },
          { ...base, actor_id: 'bob' },
        ])
        .execute();
      const privacyOf = async (u: string) =>
        Number((await db.selectFrom('attendees').select('read_privacy').where('actor_id', '=', u).executeTakeFirstOrThrow()).read_privacy);

      let r = await t.call('POST', PATH, { as: as('alice'), body: { key: 'read_status_privacy', value: 1 } });
      assert.equal(r.status, 200);
      assert.equal(await privacyOf('alice'), 1);
      assert.equal(await privacyOf('bob'), 0);
      assert.equal((await capsOf(t.p, 'alice')).config.chat['read-privacy'], 1);

      r = await t.call('POST', PATH, { as: as('alice'), body: { key: 'read_status_privacy', value: 'x' } });
      assert.equal(r.status, 400);
      assert.equal(r.data.error, 'value');
      assert.equal(await privacyOf('alice'), 1);

      r = await t.call('POST', PATH, { as: as('alice'), body: { key: 'read_status_privacy', value: '0' } });
      assert.equal(r.status, 200);
      assert.equal(await privacyOf('alice'), 0);
      assert.equal((await capsOf(t.p, 'alice')).config.chat['read-privacy'], 0);
    });

    it('read_status_privacy decides lastCommonReadMessage (own record 0 when private; excluded from the minimum)', async () => {
      await createUser(t.p, 'carol');
      const created = await t.call('POST', '/apps/spreed/api/v4/room', { as: as('alice'), body: { roomType: RoomType.GROUP, roomName: 'reads' } });
      assert.equal(created.status, 201);
      const token = created.data.token;
      const row = (await t.p.services.repos.rooms.findByToken(token))!;
      await t.p.services.rooms.addAttendees(row.id, [
        { actorType: 'users', actorId: 'bob', participantType: ParticipantType.USER },
        { actorType: 'users', actorId: 'carol', participantType: ParticipantType.USER },
      ]);
      // No chat here: read markers are set directly, as the chat would.
      for (const [user, read] of [
        ['alice', 10],
        ['bob', 7],
        ['carol', 12],
      ] as const) {
        await t.p.services.db.kysely
          .updateTable('attendees')
          .set({ last_read_message: read })
          .where('room_id', '=', row.id)
          .where('actor_id', '=', user)
          .execute();
      }
      const common = async (user: string) => (await t.call('GET', `/apps/spreed/api/v4/room/${token}`, { as: as(user) })).data.lastCommonReadMessage;
      assert.equal(await common('alice'), 7);

      assert.equal((await t.call('POST', PATH, { as: as('bob'), body: { key: 'read_status_privacy', value: 1 } })).status, 200);
      assert.equal(await common('alice'), 10, 'bob no longer counts');
      assert.equal(await common('bob'), 0, 'private readers see 0');

      assert.equal((await t.call('POST', PATH, { as: as('bob'), body: { key: 'read_status_privacy', value: 0 } })).status, 200);
      assert.equal(await common('alice'), 7);
      assert.equal(await common('bob'), 7);
    });

    it('attachment_folder: absolute normalised path, shown in capabilities', async () => {
      assert.equal((await capsOf(t.p, 'bob')).config.attachments.folder, '/Talk');
      for (const value of ['/Chat files/Talk', '/', '/Ünïcødé', '/a/b/c']) {
        const r = await t.call('POST', PATH, { as: as('bob'), body: { key: 'attachment_folder', value } });
        assert.equal(r.status, 200, value);
        assert.equal((await capsOf(t.p, 'bob')).config.attachments.folder, value);
      }
    });

    it('attachment_folder: relative, .., empty segments, too long, control characters → 400 value', async () => {
      const bad = ['', 'Talk', './Talk', '/Talk/', '//Talk', '/a//b', '/a/../b', '/..', '/a/./b', '/a\\b', '/a\nb', '/a\u0000b', '/ a', '/' + 'x'.repeat(255)];
      for (const value of bad) {
        const r = await t.call('POST', PATH, { as: as('bob'), body: { key: 'attachment_folder', value } });
        assert.equal(r.status, 400, JSON.stringify(value));
        assert.equal(r.data.error, 'value');
        assert.ok(r.data.message);
      }
      assert.equal((await prefs(t.p, 'bob')).attachment_folder, '/a/b/c');
      // The longest allowed path passes.
      const longest = '/' + 'y'.repeat(254);
      const r = await t.call('POST', PATH, { as: as('bob'), body: { key: 'attachment_folder', value: longest } });
      assert.equal(r.status, 200);
    });

    it('keys routed through the provisioning endpoint are refused with 400 key', async () => {
      for (const key of ['calls_start_without_media', 'blur_virtual_background', 'conversations_list_style', 'chat_style']) {
        const value = key === 'chat_style' ? 'unified' : key === 'conversations_list_style' ? 'compact' : 'yes';
        const r = await t.call('POST', PATH, { as: as('alice'), body: { key, value } });
        assert.equal(r.status, 400, key);
        assert.equal(r.data.error, 'key');
        assert.match(r.data.message, /provisioning_api/);
        assert.equal((await prefs(t.p, 'alice'))[key], undefined);
      }
    });

    it('unknown, missing or mistyped key/value → 400 naming the field', async () => {
      const before = await prefs(t.p, 'alice');
      const cases: Array<[unknown, string]> = [
        [{ key: 'nope', value: '1' }, 'key'],
        [{ key: 'PLAY_SOUNDS', value: 'yes' }, 'key'],
        [{ value: 'yes' }, 'key'],
        [{ key: 'play_sounds' }, 'value'],
        [{ key: ['play_sounds'], value: 'yes' }, 'key'],
        [{ key: 'play_sounds', value: true }, 'value'],
        [{ key: 'play_sounds', value: { a: 1 } }, 'value'],
        [{ key: 'play_sounds', value: 'y'.repeat(5000) }, 'value'],
        [{ key: 'k'.repeat(100), value: 'yes' }, 'key'],
      ];
      for (const [body, error] of cases) {
        const r = await t.call('POST', PATH, { as: as('alice'), body });
        assert.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(r.data.error, error);
      }
      assert.deepEqual(await prefs(t.p, 'alice'), before);
    });

    it('answers under /ocs/v1.php too', async () => {
      const r = await t.call('POST', PATH, { as: as('alice'), version: 1, body: { key: 'play_sounds', value: 'yes' } });
      assert.equal(r.status, 200);
      assert.equal(r.meta.statuscode, 100);
      assert.equal((await prefs(t.p, 'alice')).play_sounds, 'yes');
    });

    it('the typing-privacy feature is advertised', async () => {
      assert.ok((await capsOf(t.p, 'alice')).features.includes('typing-privacy'));
    });
  });
}
