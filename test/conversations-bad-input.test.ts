/**
 * Bad input on every conversation endpoint (contract "Errors"; docs/reference/conversations.md#endpoint-rules): for each
 * request field a wrong type, a missing value, an empty value, a value too long, an unknown enum
 * value, and a malformed token answer the contract's 4xx with a `data.error` naming the problem,
 * never a 500 — and the stored conversation (room row and every attendee row) is read back
 * unchanged.
 *
 * Empty values that the contract gives a meaning are not errors and are tested where they act:
 * an empty description clears it, an empty password removes it (conversation-settings.test.ts),
 * an empty `timer` means no timer, an empty `includeStatus` is false.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects } from './helpers/parley.js';
import { attendeesOf, createRoom, NO_THROTTLE, roomCount, roomRow, seedUser, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

interface Case {
  /** What is wrong, for the failure message. */
  what: string;
  method: string;
  /** Path after /room/{token} (or a tokenless path starting with '!'). */
  path: string;
  body?: Record<string, unknown>;
  query?: Record<string, string>;
  /** Send the body as a form (strings) instead of JSON. */
  form?: Record<string, string>;
  status?: number;
  error: string;
}

const LONG = (n: number) => 'x'.repeat(n);

/** Field-level cases per endpoint: wrong type, missing, empty, too long, unknown enum value. */
const CASES: Case[] = [
  // PUT /room/{token} (rename)
  ...[{}, { roomName: { a: 1 } }, { roomName: ['x'] }, { roomName: true }, { roomName: '' }, { roomName: '   ' }, { roomName: LONG(256) }].map(
    (body): Case => ({ what: `rename ${JSON.stringify(body).slice(0, 40)}`, method: 'PUT', path: '', body, error: 'value' }),
  ),
  // PUT description
  ...[{}, { description: { a: 1 } }, { description: [1] }, { description: false }, { description: LONG(2001) }].map((body): Case => ({
    what: `description ${JSON.stringify(body).slice(0, 40)}`,
    method: 'PUT',
    path: '/description',
    body,
    error: 'value',
  })),
  // POST public (optional password)
  ...[{ password: { a: 1 } }, { password: [1] }, { password: 'short' }, { password: LONG(4097) }].map((body): Case => ({
    what: `make public ${JSON.stringify(body).slice(0, 40)}`,
    method: 'POST',
    path: '/public',
    body,
    error: 'password',
  })),
  // PUT read-only
  ...[{}, { state: 'abc' }, { state: '' }, { state: 1.5 }, { state: 2 }, { state: -1 }, { state: { a: 1 } }].map((body): Case => ({
    what: `read-only ${JSON.stringify(body)}`,
    method: 'PUT',
    path: '/read-only',
    body,
    error: 'value',
  })),
  { what: 'read-only form state=abc', method: 'PUT', path: '/read-only', form: { state: 'abc' }, error: 'value' },
  // PUT password
  ...[{}, { password: { a: 1 } }, { password: [1] }, { password: 'short' }, { password: LONG(4097) }].map((body): Case => ({
    what: `password ${JSON.stringify(body).slice(0, 40)}`,
    method: 'PUT',
    path: '/password',
    body,
    error: 'value',
  })),
  // PUT permissions/{mode}
  ...[{}, { permissions: 'abc' }, { permissions: '' }, { permissions: 512 }, { permissions: -1 }, { permissions: 1.5 }].map((body): Case => ({
    what: `permissions ${JSON.stringify(body)}`,
    method: 'PUT',
    path: '/permissions/default',
    body,
    error: 'value',
  })),
  { what: 'permissions unknown mode', method: 'PUT', path: '/permissions/everyone', body: { permissions: 4 }, error: 'mode' },
  { what: 'permissions mode too long', method: 'PUT', path: `/permissions/${'d'.repeat(40)}`, body: { permissions: 4 }, error: 'mode' },
  // POST notify / notify-calls
  ...[{}, { level: 'abc' }, { level: '' }, { level: 0 }, { level: 4 }, { level: 1.5 }].map((body): Case => ({
    what: `notify ${JSON.stringify(body)}`,
    method: 'POST',
    path: '/notify',
    body,
    error: 'level',
  })),
  ...[{}, { level: 'abc' }, { level: '' }, { level: 2 }, { level: -1 }].map((body): Case => ({
    what: `notify-calls ${JSON.stringify(body)}`,
    method: 'POST',
    path: '/notify-calls',
    body,
    error: 'level',
  })),
  // POST message-expiration
  ...[{}, { seconds: 'abc' }, { seconds: '' }, { seconds: -1 }, { seconds: 2_147_483_648 }, { seconds: 1.5 }].map((body): Case => ({
    what: `message-expiration ${JSON.stringify(body)}`,
    method: 'POST',
    path: '/message-expiration',
    body,
    error: 'value',
  })),
  // PUT listable
  ...[{}, { scope: 'abc' }, { scope: '' }, { scope: 3 }, { scope: -1 }].map((body): Case => ({
    what: `listable ${JSON.stringify(body)}`,
    method: 'PUT',
    path: '/listable',
    body,
    error: 'value',
  })),
  // PUT webinar/lobby
  ...[{}, { state: 'abc' }, { state: '' }, { state: 2 }].map((body): Case => ({
    what: `lobby ${JSON.stringify(body)}`,
    method: 'PUT',
    path: '/webinar/lobby',
    body,
    error: 'value',
  })),
  ...[
    { state: 1, timer: 'abc' },
    { state: 1, timer: -5 },
    { state: 1, timer: 1.5 },
    { state: 1, timer: 253_402_300_800 },
    { state: 1, timer: { a: 1 } },
  ].map((body): Case => ({ what: `lobby ${JSON.stringify(body)}`, method: 'PUT', path: '/webinar/lobby', body, error: 'timer' })),
];

/** Tokenless endpoints: the query or body field is wrong; nothing may be created. */
const TOKENLESS: Case[] = [
  // GET /room: each query field with the values it refuses (the field is the error).
  ...Object.entries({
    noStatusUpdate: ['abc', '2', ''],
    includeStatus: ['maybe'],
    modifiedSince: ['abc', '-1', ''],
    includeLastMessage: ['maybe'],
  }).flatMap(([field, values]) =>
    values.map((value): Case => ({
      what: `GET /room ${JSON.stringify({ [field]: value })}`,
      method: 'GET',
      path: '!/room',
      query: { [field]: value },
      error: field,
    })),
  ),
  { what: 'GET /listed-room searchTerm too long', method: 'GET', path: '!/listed-room', query: { searchTerm: LONG(256) }, error: 'searchTerm' },
  ...[{}, { roomType: 'abc' }, { roomType: '' }, { roomType: RoomType.CHANGELOG }, { roomType: 0 }, { roomType: 1.5 }].map((body): Case => ({
    what: `POST /room ${JSON.stringify(body)}`,
    method: 'POST',
    path: '!/room',
    body: { roomName: 'n', ...body },
    error: 'type',
  })),
  ...[{ roomName: '' }, { roomName: '  ' }, { roomName: LONG(256) }, { roomName: { a: 1 } }].map((body): Case => ({
    what: `POST /room public ${JSON.stringify(body).slice(0, 40)}`,
    method: 'POST',
    path: '!/room',
    body: { roomType: RoomType.PUBLIC, ...body },
    error: 'name',
  })),
  { what: 'POST /room invite too long', method: 'POST', path: '!/room', body: { roomType: RoomType.ONE_TO_ONE, invite: LONG(256) }, error: 'invite' },
  { what: 'POST /room invite wrong type', method: 'POST', path: '!/room', body: { roomType: RoomType.ONE_TO_ONE, invite: ['bob'] }, error: 'invite' },
  {
    what: 'POST /room invite missing user',
    method: 'POST',
    path: '!/room',
    body: { roomType: RoomType.ONE_TO_ONE, invite: 'nobody' },
    status: 404,
    error: 'invite',
  },
  { what: 'POST /room invite empty', method: 'POST', path: '!/room', body: { roomType: RoomType.ONE_TO_ONE, invite: '' }, status: 404, error: 'invite' },
  {
    what: 'POST /room source too long',
    method: 'POST',
    path: '!/room',
    body: { roomType: RoomType.GROUP, invite: 'staff', source: LONG(65) },
    error: 'source',
  },
  {
    what: 'POST /room unknown objectType',
    method: 'POST',
    path: '!/room',
    body: { roomType: RoomType.GROUP, roomName: 'n', objectType: 'file', objectId: '1' },
    error: 'object',
  },
  {
    what: 'POST /room objectType too long',
    method: 'POST',
    path: '!/room',
    body: { roomType: RoomType.GROUP, roomName: 'n', objectType: LONG(65) },
    error: 'object',
  },
  {
    what: 'POST /room objectId too long',
    method: 'POST',
    path: '!/room',
    body: { roomType: RoomType.GROUP, roomName: 'n', objectType: 'room', objectId: LONG(65) },
    error: 'object',
  },
  {
    what: 'POST /room objectId without objectType',
    method: 'POST',
    path: '!/room',
    body: { roomType: RoomType.GROUP, roomName: 'n', objectId: 'abcdefgh' },
    error: 'object',
  },
];

/** Every endpoint that takes a token, with a body that would otherwise be valid. */
const TOKEN_ENDPOINTS: Array<[string, string, Record<string, unknown>?]> = [
  ['GET', ''],
  ['PUT', '', { roomName: 'x' }],
  ['DELETE', ''],
  ['PUT', '/description', { description: 'x' }],
  ['POST', '/public'],
  ['DELETE', '/public'],
  ['PUT', '/read-only', { state: 1 }],
  ['PUT', '/password', { password: 'correct horse battery' }],
  ['PUT', '/permissions/default', { permissions: 4 }],
  ['POST', '/favorite'],
  ['DELETE', '/favorite'],
  ['POST', '/archive'],
  ['DELETE', '/archive'],
  ['POST', '/important'],
  ['DELETE', '/important'],
  ['POST', '/sensitive'],
  ['DELETE', '/sensitive'],
  ['POST', '/notify', { level: 1 }],
  ['POST', '/notify-calls', { level: 0 }],
  ['POST', '/message-expiration', { seconds: 60 }],
  ['PUT', '/listable', { scope: 1 }],
  ['PUT', '/webinar/lobby', { state: 1 }],
  ['DELETE', '/avatar'],
];
/** Endpoints Talk does not mark as public pages: without a login 401 comes first (docs/reference/conversations.md#endpoint-rules). */
const LOGIN_FIRST = new Set(['PUT /webinar/lobby']);
const MALFORMED_TOKENS = ['NOT-A-TOKEN', 'abc', 'a'.repeat(31), 'ab_cd1234', 'nosuchroom'];

for (const dialect of dialects()) {
  describe(`bad input on conversation endpoints [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE });
    let token: string;
    before(async () => {
      for (const u of ['alice', 'bob']) await createUser(t.p, u, { groups: ['staff'] });
      const room = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Stable' });
      token = room.token;
      await seedUser(t.p, token, 'bob', ParticipantType.USER);
    });

    /** Everything stored about the conversation. */
    const snapshot = async () => ({ room: await roomRow(t.p, token), attendees: await attendeesOf(t.p, token) });

    it('every field of every settings endpoint: 400 with data.error, conversation unchanged', async () => {
      const before = await snapshot();
      const failures: string[] = [];
      for (const c of CASES) {
        const r = await t.call(c.method, `${V4}/room/${token}${c.path}`, { as: as('alice'), body: c.form ? undefined : c.body, form: c.form });
        const status = c.status ?? 400;
        if (r.status !== status || r.data?.error !== c.error) failures.push(`${c.what}: ${r.status} ${JSON.stringify(r.data)} (want ${status} ${c.error})`);
        else if (typeof r.data.message !== 'string' || r.data.message === '') failures.push(`${c.what}: no readable message`);
      }
      assert.deepEqual(failures, []);
      assert.deepEqual(await snapshot(), before);
    });

    it('tokenless endpoints (GET /room, POST /room, GET /listed-room): 4xx with data.error, nothing created', async () => {
      const rooms = await roomCount(t.p);
      const failures: string[] = [];
      for (const c of TOKENLESS) {
        const r = await t.call(c.method, `${V4}${c.path.slice(1)}`, { as: as('alice'), body: c.body, query: c.query });
        const status = c.status ?? 400;
        if (r.status !== status || r.data?.error !== c.error) failures.push(`${c.what}: ${r.status} ${JSON.stringify(r.data)} (want ${status} ${c.error})`);
      }
      assert.deepEqual(failures, []);
      assert.equal(await roomCount(t.p), rooms);
    });

    it('malformed or unknown tokens: 404 room on every endpoint, for members and anonymous callers (401 where a login comes first)', async () => {
      const before = await snapshot();
      const failures: string[] = [];
      for (const bad of MALFORMED_TOKENS) {
        for (const [method, path, body] of TOKEN_ENDPOINTS) {
          for (const who of [as('alice'), undefined]) {
            const r = await t.call(method, `${V4}/room/${encodeURIComponent(bad)}${path}`, { as: who, body });
            if (who === undefined && LOGIN_FIRST.has(`${method} ${path}`)) {
              if (r.status !== 401) failures.push(`${method} ${path} ${bad} anonymous: ${r.status} (want 401)`);
            } else if (r.status !== 404 || r.data?.error !== 'room')
              failures.push(`${method} ${path} ${bad} ${who ? 'alice' : 'anonymous'}: ${r.status} ${r.text.slice(0, 80)}`);
          }
        }
      }
      assert.deepEqual(failures, []);
      assert.deepEqual(await snapshot(), before);
    });

    it('a malformed JSON body is a 400, not a 500, and changes nothing', async () => {
      const before = await snapshot();
      const r = await t.call('PUT', `${V4}/room/${token}/description`, { as: as('alice'), body: '{"description": ' });
      assert.equal(r.status, 400);
      assert.deepEqual(await snapshot(), before);
    });

    it('the valid inputs next to the bad ones do work (the cases above fail for the reason given)', async () => {
      const ok: Array<[string, string, Record<string, unknown>]> = [
        ['PUT', '/read-only', { state: 1 }],
        ['POST', '/notify', { level: 3 }],
        ['POST', '/notify-calls', { level: 0 }],
        ['POST', '/message-expiration', { seconds: 2_147_483_647 }],
        ['PUT', '/listable', { scope: 2 }],
        ['PUT', '/webinar/lobby', { state: 1, timer: '' }],
        ['PUT', '/permissions/default', { permissions: 255 }],
        ['PUT', '/description', { description: LONG(2000) }],
      ];
      for (const [method, path, body] of ok) {
        const r = await t.call(method, `${V4}/room/${token}${path}`, { as: as('alice'), body });
        assert.equal(r.status, 200, `${method} ${path}: ${r.text.slice(0, 200)}`);
      }
      const row = await roomRow(t.p, token);
      assert.deepEqual(
        [row!.read_only, row!.message_expiration, row!.listable, row!.lobby_state, row!.lobby_timer, row!.default_permissions, row!.description.length],
        [1, 2_147_483_647, 2, 1, 0, 255, 2000],
      );
    });
  });
}
