/**
 * What today's Talk clients send and expect: permission values up to 511 (the react bit), the
 * per-user keys the web client stores through the provisioning API, the record fields Talk's
 * OpenAPI marks required, `attendeePin` always a string, and emoji avatars
 * (`POST /room/{token}/avatar/emoji`).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects } from './helpers/parley.js';
import { attendeesOf, createRoom, joinGuest, roomRow, seedUser, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

const PROV = '/apps/provisioning_api/api/v1/config/users/spreed';

for (const dialect of dialects()) {
  describe(`today's Talk clients [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob', 'carol'] });

    it('permissions up to 511 on default and attendee permissions; 512 is 400', async () => {
      const room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Reacting' });
      const carol = await seedUser(t.p, room.token, 'carol', ParticipantType.USER);
      const def = await t.call('PUT', `${V4}/room/${room.token}/permissions/default`, { as: as('alice'), body: { permissions: 510 } });
      assert.equal(def.status, 200, def.text);
      assert.equal(def.data.defaultPermissions, 511, 'Custom bit added');
      const att = await t.call('PUT', `${V4}/room/${room.token}/attendees/permissions`, {
        as: as('alice'),
        body: { attendeeId: carol.id, method: 'set', permissions: 256 | 128 },
      });
      assert.equal(att.status, 200, att.text);
      assert.equal((await attendeesOf(t.p, room.token)).find((a) => a.actor_id === 'carol')!.permissions, 256 | 128 | 1);
      const bad = await t.call('PUT', `${V4}/room/${room.token}/permissions/default`, { as: as('alice'), body: { permissions: 512 } });
      assert.deepEqual([bad.status, bad.data.error], [400, 'value']);
      assert.equal((await roomRow(t.p, room.token))!.default_permissions, 511);
    });

    it('the web client keys conversations_sort_order and conversations_group_mode are stored; bad values 400', async () => {
      for (const [key, value] of [
        ['conversations_sort_order', 'alphabetical'],
        ['conversations_group_mode', 'type'],
      ]) {
        const r = await t.call('POST', `${PROV}/${key}`, { as: as('bob'), body: { configValue: value } });
        assert.equal(r.status, 200, `${key}: ${r.text}`);
        assert.equal((await t.p.services.preferences.forUser('bob')).get(key), value);
        const bad = await t.call('POST', `${PROV}/${key}`, { as: as('bob'), body: { configValue: 'Not A Word!' } });
        assert.deepEqual([bad.status, bad.data.error], [400, 'value']);
        assert.equal((await t.p.services.preferences.forUser('bob')).get(key), value, 'unchanged');
        assert.equal((await t.call('DELETE', `${PROV}/${key}`, { as: as('bob') })).status, 200);
        assert.equal((await t.p.services.preferences.forUser('bob')).get(key), undefined);
      }
    });

    it('records carry the fields Talk’s OpenAPI requires, attendeePin a string even for guests', async () => {
      const room = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Fields' });
      const g = await joinGuest(t.p, room.token);
      for (const who of [as('alice'), g.caller]) {
        const r = await t.call('GET', `${V4}/room/${room.token}`, { as: who });
        assert.equal(r.status, 200);
        assert.deepEqual([r.data.lastPinnedId, r.data.hiddenPinnedId, r.data.hasScheduledMessages, r.data.tagIds, r.data.attributes], [0, 0, 0, [], 0]);
        assert.equal(typeof r.data.attendeePin, 'string');
      }
    });

    it('POST /room/{token}/avatar/emoji sets an emoji avatar; moderators only; bad emoji or colour 400', async () => {
      const room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Emoji' });
      await seedUser(t.p, room.token, 'carol', ParticipantType.USER);
      const path = `/apps/spreed/api/v1/room/${room.token}/avatar/emoji`;
      const r = await t.call('POST', path, { as: as('alice'), body: { emoji: '🎉', color: '00ff00' } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.isCustomAvatar, true);
      const img = await t.call('GET', `/apps/spreed/api/v1/room/${room.token}/avatar`, { as: as('carol'), format: 'none' });
      assert.equal(img.status, 200);
      assert.match(img.headers.get('content-type')!, /^image\/svg\+xml/);
      assert.ok(img.text.includes('🎉') && img.text.includes('#00ff00'));
      const version = r.data.avatarVersion;
      const v4 = await t.call('POST', `${V4}/room/${room.token}/avatar/emoji`, { as: as('alice'), form: { emoji: '🌍' } });
      assert.equal(v4.status, 200, v4.text);
      assert.notEqual(v4.data.avatarVersion, version, 'a new image, a new version');
      // A null colour is the default one, as omitted (Talk's ?string $color; nc_py_api sends null).
      const nullColour = await t.call('POST', path, { as: as('alice'), body: { emoji: '🫡', color: null } });
      assert.equal(nullColour.status, 200, nullColour.text);
      assert.equal(nullColour.data.isCustomAvatar, true);
      // Without a colour the background is the theme's grey, lighter for light than for dark
      // (Talk's THEMING placeholder, docs/reference/conversations.md#avatars).
      for (const [variant, grey] of [
        ['', '#6b6b6b'],
        ['/dark', '#3b3b3b'],
      ]) {
        const themed = await t.call('GET', `/apps/spreed/api/v1/room/${room.token}/avatar${variant}`, { as: as('carol'), format: 'none' });
        assert.equal(themed.status, 200);
        assert.ok(themed.text.includes('🫡') && themed.text.includes(grey) && !themed.text.includes('{{'), themed.text);
      }
      const refusals: Array<[string, Record<string, string>, number, string]> = [
        ['carol', { emoji: '🎉' }, 403, 'moderator'],
        ['alice', { emoji: 'ab' }, 400, 'emoji'],
        ['alice', { emoji: '🎉🎉' }, 400, 'emoji'],
        ['alice', { emoji: '🎉', color: '#00ff00' }, 400, 'color'],
        ['alice', {}, 400, 'emoji'],
        ['alice', { emoji: '🎉'.repeat(40) }, 400, 'emoji'],
        ['alice', { emoji: '\u0000' }, 400, 'emoji'],
        ['alice', { emoji: '🎉', color: '00ff00\u0000' }, 400, 'color'],
        ['bob', { emoji: '🎉' }, 404, 'room'],
      ];
      for (const [who, body, status, error] of refusals) {
        const res = await t.call('POST', path, { as: as(who), body });
        assert.deepEqual([res.status, res.data.error], [status, error], JSON.stringify(body));
      }
      const one = await createRoom(t.p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      const res = await t.call('POST', `/apps/spreed/api/v1/room/${one.token}/avatar/emoji`, { as: as('alice'), body: { emoji: '🎉' } });
      assert.deepEqual([res.status, res.data.error], [400, 'type']);
    });
  });
}
