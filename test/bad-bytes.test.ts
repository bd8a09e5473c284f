/**
 * One rule of the OCS parameter layer (docs/security.md): a NUL byte in any text parameter
 * (body, query, path) is a 400 whose `data.error` names the field, and an integer parameter
 * outside the safe range or not whole (`1e20`, `-1e308`, `1.5`) is a 400 — identically on
 * SQLite and PostgreSQL (which refuses NUL in text and overflows on such numbers: 500s before),
 * and nothing is stored.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, dialects, type Caller } from './helpers/parley.js';
import { createRoom, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const NUL = 'x\u0000y';

for (const dialect of dialects()) {
  describe(`NUL bytes and out-of-range numbers are 400 [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob'] });
    let token: string;
    let bob: number;
    before(async () => {
      token = (await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'bytes' })).token;
      assert.equal((await t.call('POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: 'bob' } })).status, 200);
      const people = (await t.call('GET', `${V4}/room/${token}/participants`, { as: as('alice') })).data as Array<{ actorId: string; attendeeId: number }>;
      bob = people.find((x) => x.actorId === 'bob')!.attendeeId;
    });

    const cases: Array<{
      what: string;
      method: string;
      path: () => string;
      as: () => Caller;
      body?: () => Record<string, unknown>;
      query?: Record<string, string>;
      field: string;
      reason?: string;
    }> = [
      {
        what: 'room name',
        method: 'POST',
        path: () => `${V4}/room`,
        as: () => as('alice'),
        body: () => ({ roomType: RoomType.PUBLIC, roomName: NUL }),
        field: 'roomName',
        reason: 'name',
      },
      {
        what: 'rename',
        method: 'PUT',
        path: () => `${V4}/room/${token}`,
        as: () => as('alice'),
        body: () => ({ roomName: NUL }),
        field: 'roomName',
        reason: 'value',
      },
      {
        what: 'description',
        method: 'PUT',
        path: () => `${V4}/room/${token}/description`,
        as: () => as('alice'),
        body: () => ({ description: NUL }),
        field: 'description',
        reason: 'value',
      },
      { what: 'search term', method: 'GET', path: () => `${V4}/listed-room`, as: () => as('alice'), query: { searchTerm: NUL }, field: 'searchTerm' },
      { what: 'token in a path', method: 'GET', path: () => `${V4}/room/${token}%00`, as: () => as('alice'), field: 'token' },
      {
        what: 'status message',
        method: 'PUT',
        path: () => '/apps/user_status/api/v1/user_status/message/custom',
        as: () => as('alice'),
        body: () => ({ message: NUL }),
        field: 'message',
      },
      {
        what: 'participant id',
        method: 'POST',
        path: () => `${V4}/room/${token}/participants`,
        as: () => as('alice'),
        body: () => ({ newParticipant: NUL }),
        field: 'newParticipant',
      },
      {
        what: 'new user id',
        method: 'POST',
        path: () => '/cloud/users',
        as: () => admin,
        body: () => ({ userid: NUL, password: 'a-long-password-123' }),
        field: 'userid',
      },
      { what: 'user search', method: 'GET', path: () => '/cloud/users', as: () => admin, query: { search: NUL }, field: 'search' },
      { what: 'user id in a path', method: 'GET', path: () => '/cloud/users/bob%00', as: () => admin, field: 'userid' },
      {
        what: 'SIP settings',
        method: 'POST',
        path: () => `${V4.replace('/v4', '/v1')}/settings/sip`,
        as: () => admin,
        body: () => ({ dialInInfo: NUL, sharedSecret: 's', sipGroups: [] }),
        field: 'dialInInfo',
      },
      {
        what: 'a list item',
        method: 'POST',
        path: () => `${V4.replace('/v4', '/v1')}/settings/sip`,
        as: () => admin,
        body: () => ({ sipGroups: ['ok', NUL] }),
        field: 'sipGroups',
      },
      {
        what: 'a nested key',
        method: 'PUT',
        path: () => `${V4}/room/${token}/description`,
        as: () => as('alice'),
        body: () => ({ description: 'fine', extra: { ['k\u0000']: 1 } }),
        field: 'extra',
      },
    ];
    for (const c of cases) {
      it(`NUL in ${c.what}: 400 naming ${c.field}`, async () => {
        const r = await t.call(c.method, c.path(), { as: c.as(), body: c.body?.(), query: c.query });
        assert.equal(r.status, 400, r.text);
        // data.error is the field's reason as the contract names it (often the field itself).
        assert.equal(r.data.error, c.reason ?? c.field, r.text);
        assert.match(r.data.message, new RegExp(`^${c.field} must not contain a NUL byte`), r.text);
      });
    }

    const ints: Array<{ what: string; method: string; path: () => string; body: (v: unknown) => Record<string, unknown>; field: string; reason?: string }> = [
      { what: 'attendeeId', method: 'POST', path: () => `${V4}/room/${token}/moderators`, body: (v) => ({ attendeeId: v }), field: 'attendeeId' },
      {
        what: 'permissions',
        method: 'PUT',
        path: () => `${V4}/room/${token}/permissions/default`,
        body: (v) => ({ permissions: v }),
        field: 'permissions',
        reason: 'value',
      },
      {
        what: 'seconds',
        method: 'POST',
        path: () => `${V4}/room/${token}/message-expiration`,
        body: (v) => ({ seconds: v }),
        field: 'seconds',
        reason: 'value',
      },
      { what: 'level', method: 'POST', path: () => `${V4}/room/${token}/notify`, body: (v) => ({ level: v }), field: 'level' },
      { what: 'state', method: 'PUT', path: () => `${V4}/room/${token}/webinar/lobby`, body: (v) => ({ state: v }), field: 'state', reason: 'value' },
      { what: 'timer', method: 'PUT', path: () => `${V4}/room/${token}/webinar/lobby`, body: (v) => ({ state: 1, timer: v }), field: 'timer' },
      {
        what: 'clearAt',
        method: 'PUT',
        path: () => '/apps/user_status/api/v1/user_status/message/custom',
        body: (v) => ({ message: 'hi', clearAt: v }),
        field: 'clearAt',
      },
    ];
    for (const c of ints) {
      it(`${c.what} of 1e20, -1e308, 1.5 or 9223372036854775808: 400`, async () => {
        for (const v of [1e20, -1e308, 1.5, '9223372036854775808', '1e20']) {
          const r = await t.call(c.method, c.path(), { as: as('alice'), body: c.body(v) });
          assert.equal(r.status, 400, `${JSON.stringify(v)}: ${r.text}`);
          assert.equal(r.data.error, c.reason ?? c.field, `${JSON.stringify(v)}: ${r.text}`);
          assert.match(r.data.message, new RegExp(`^${c.field} must be`), r.text);
        }
      });
    }

    it('nothing was stored: names, description and users are unchanged', async () => {
      const room = await t.call('GET', `${V4}/room/${token}`, { as: as('alice') });
      assert.equal(room.data.displayName, 'bytes');
      assert.equal(room.data.description, '');
      const users = await t.call('GET', '/cloud/users', { as: admin });
      assert.ok(users.data.users.every((u: string) => !u.includes('\u0000')));
      assert.ok(bob > 0);
    });
  });
}
