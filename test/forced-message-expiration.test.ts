/**
 * App config `force_message_expiration` (Talk's "forced" conversation preset): once set, every
 * new conversation gets that expiration whatever the client asks; afterwards moderators may change
 * it, as in Talk, where the key applies at creation only; unset, nothing is forced.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, dialects } from './helpers/parley.js';
import { NO_THROTTLE, roomRow, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const CONFIG = '/apps/provisioning_api/api/v1/config/apps/spreed/force_message_expiration';

for (const dialect of dialects()) {
  describe(`force_message_expiration [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice'] });
    const create = (body: Record<string, unknown>) =>
      t.call('POST', `${V4}/room`, { as: as('alice'), body: { roomType: RoomType.GROUP, roomName: 'R', ...body } });
    const expire = (token: string, seconds: number, format: 'json' | 'xml' = 'json') =>
      t.call('POST', `${V4}/room/${token}/message-expiration`, { as: as('alice'), body: { seconds }, format });

    it('is a known key with bounds: 400 for a bad value, 200 for seconds; delete unsets it', async () => {
      for (const value of ['abc', '-1', '1.5', '99999999999']) {
        const r = await t.call('POST', CONFIG, { as: admin, body: { value } });
        assert.equal(r.status, 400, `${value}: ${r.text}`);
      }
      assert.equal((await t.call('POST', CONFIG, { as: admin, body: { value: '3600' } })).status, 200);
      const read = await t.call('GET', '/apps/provisioning_api/api/v1/config/apps/spreed/force_message_expiration', { as: admin });
      assert.equal(read.data.data, '3600');
      assert.equal((await t.call('DELETE', CONFIG, { as: admin })).status, 200);
    });

    it('unset: conversations choose freely', async () => {
      const r = await create({ messageExpiration: 60 });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.data.messageExpiration, 60);
      assert.equal((await expire(r.data.token, 0)).status, 200);
      assert.equal((await expire(r.data.token, 99999)).status, 200);
    });

    it('set: new conversations get it whatever they ask (JSON and XML); moderators may change it afterwards, as in Talk', async () => {
      assert.equal((await t.call('POST', CONFIG, { as: admin, body: { value: '3600' } })).status, 200);
      try {
        for (const body of [{}, { messageExpiration: 0 }, { messageExpiration: 60 }, { messageExpiration: -5 }]) {
          const r = await create(body);
          assert.equal(r.status, 201, `${JSON.stringify(body)}: ${r.text}`);
          assert.equal(r.data.messageExpiration, 3600, JSON.stringify(body));
        }
        const xml = await t.call('POST', `${V4}/room`, {
          as: as('alice'),
          body: { roomType: RoomType.GROUP, roomName: 'X', messageExpiration: 5 },
          format: 'xml',
        });
        assert.equal(xml.status, 201);
        assert.match(xml.text, /<messageExpiration>3600<\/messageExpiration>/);
        // The key decides at creation only (Talk's RoomPresetService): off, longer and shorter are accepted later.
        const token = (await create({})).data.token;
        for (const seconds of [0, 7200, 1800]) {
          const r = await expire(token, seconds);
          assert.equal(r.status, 200, `${seconds}: ${r.text}`);
          assert.equal(r.data.messageExpiration, seconds);
        }
        assert.deepEqual([(await expire(token, -1)).status, (await expire(token, -1)).data?.error], [400, 'value']);

        // Forced to 0: new conversations start without expiration.
        assert.equal((await t.call('POST', CONFIG, { as: admin, body: { value: '0' } })).status, 200);
        const off = await create({ messageExpiration: 600 });
        assert.equal(off.data.messageExpiration, 0);
        assert.equal((await roomRow(t.p, off.data.token))!.message_expiration, 0);
      } finally {
        await t.call('DELETE', CONFIG, { as: admin });
      }
      const free = await create({ messageExpiration: 0 });
      assert.equal(free.data.messageExpiration, 0, 'unset again: not forced');
    });
  });
}
