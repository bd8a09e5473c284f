/**
 * Who may do what (contract "Authentication"; docs/reference/conversations.md#endpoint-rules): every conversation endpoint,
 * called by each kind of caller — owner, moderator, normal user, self-joined user, guest, guest
 * moderator, logged-in non-participant, anonymous — on each conversation type where that caller
 * can exist, answers the contract's status (and Parley's `data.error`). Users are seeded through
 * the service layer; guests join through POST /room/{token}/participants/active and are recognised
 * by their cookie.
 *
 * Decisions where the contract and Talk differ are listed in docs/compatibility.md: contract endpoints
 * Talk reserves for logged-in moderators answer 403 `moderator` to guest moderators and 404 to
 * anonymous non-participants (the contract lists no 401 for them); password is 403 `type` when
 * the conversation is not public (contract).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects, type Caller } from './helpers/parley.js';
import { createRoom, joinGuest, NO_THROTTLE, seedUser, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

type Kind = 'owner' | 'moderator' | 'user' | 'selfJoined' | 'guest' | 'guestModerator' | 'stranger' | 'anonymous';
const KINDS: Kind[] = ['owner', 'moderator', 'user', 'selfJoined', 'guest', 'guestModerator', 'stranger', 'anonymous'];
/** Conversation types: 1 one-to-one, 2 group, 3 public. */
/** The conversation types the table covers. */
type Tested = typeof RoomType.ONE_TO_ONE | typeof RoomType.GROUP | typeof RoomType.PUBLIC;

/** Which kinds exist in which conversation type (guests and self-joined users only in public ones). */
function kindsFor(type: Tested): Kind[] {
  if (type === RoomType.ONE_TO_ONE) return ['owner', 'stranger', 'anonymous'];
  if (type === RoomType.GROUP) return ['owner', 'moderator', 'user', 'stranger', 'anonymous'];
  return KINDS;
}

/** [status, data.error] — the error is checked for 4xx answers. */
type Expect = [number, string?];

const OK: Expect = [200];
const NOT_FOUND: Expect = [404, 'room'];
const NOT_MODERATOR: Expect = [403, 'moderator'];
const GUEST: Expect = [401, 'guest'];

const outsider = (k: Kind) => k === 'stranger' || k === 'anonymous';
const logged = (k: Kind) => k === 'owner' || k === 'moderator';

/** Moderator endpoints: guest moderators admitted unless `loggedInOnly`; one-to-one answers `oneToOne`. */
function moderators(opts: { loggedInOnly?: boolean; oneToOne: Expect }) {
  return (k: Kind, t: Tested): Expect => {
    if (outsider(k)) return NOT_FOUND;
    if (t === RoomType.ONE_TO_ONE) return opts.oneToOne;
    if (logged(k) || (k === 'guestModerator' && !opts.loggedInOnly)) return OK;
    return NOT_MODERATOR;
  };
}

/**
 * Moderator endpoints outside the contract that Talk does not mark as public pages: without a login
 * (guests, guest moderators, anonymous) 401 comes first (docs/reference/conversations.md#endpoint-rules).
 */
function loginThenModerators(oneToOne: Expect) {
  const base = moderators({ loggedInOnly: true, oneToOne });
  return (k: Kind, t: Tested): Expect => (k === 'guest' || k === 'guestModerator' || k === 'anonymous' ? [401] : base(k, t));
}

/** A moderator endpoint that works only on conversations of type `only`; allowed callers get `otherwise` elsewhere. */
function onlyOn(only: Tested, otherwise: Expect, base: (k: Kind, t: Tested) => Expect) {
  return (k: Kind, t: Tested): Expect => {
    const e = base(k, t);
    return e[0] === 200 && t !== only ? otherwise : e;
  };
}

/** Endpoints for logged-in participants: guests (and guest moderators) get 401 guest. */
const loggedInParticipants = (k: Kind): Expect => (outsider(k) ? NOT_FOUND : k === 'guest' || k === 'guestModerator' ? GUEST : OK);

interface Endpoint {
  name: string;
  method: string;
  path: string;
  body?: Record<string, unknown>;
  expect: (k: Kind, t: Tested) => Expect;
  /** A success changes who can reach the conversation: use a fresh one for each successful call. */
  destructive?: boolean;
}

const ENDPOINTS: Endpoint[] = [
  {
    name: 'get one',
    method: 'GET',
    path: '',
    expect: (k, t) => (outsider(k) && t !== RoomType.PUBLIC ? NOT_FOUND : OK),
  },
  { name: 'rename', method: 'PUT', path: '', body: { roomName: 'Renamed' }, expect: moderators({ oneToOne: [400, 'type'] }) },
  { name: 'delete', method: 'DELETE', path: '', expect: moderators({ oneToOne: [400, 'type'] }), destructive: true },
  { name: 'description', method: 'PUT', path: '/description', body: { description: 'About' }, expect: moderators({ oneToOne: [400, 'type'] }) },
  // Contract: 400 "not a group conversation" / "not a public conversation" (already public or group too).
  {
    name: 'make public',
    method: 'POST',
    path: '/public',
    expect: onlyOn(RoomType.GROUP, [400, 'type'], moderators({ loggedInOnly: true, oneToOne: [400, 'type'] })),
    destructive: true,
  },
  {
    name: 'make group',
    method: 'DELETE',
    path: '/public',
    expect: onlyOn(RoomType.PUBLIC, [400, 'type'], moderators({ loggedInOnly: true, oneToOne: [400, 'type'] })),
    destructive: true,
  },
  { name: 'read-only', method: 'PUT', path: '/read-only', body: { state: 1 }, expect: moderators({ loggedInOnly: true, oneToOne: [400, 'type'] }) },
  {
    name: 'password',
    method: 'PUT',
    path: '/password',
    body: { password: 'correct horse battery' },
    expect: (k, t) => {
      const base = moderators({ oneToOne: [403, 'type'] })(k, t);
      return base[0] === 200 && t !== RoomType.PUBLIC ? [403, 'type'] : base;
    },
  },
  { name: 'default permissions', method: 'PUT', path: '/permissions/default', body: { permissions: 126 }, expect: moderators({ oneToOne: [400, 'type'] }) },
  { name: 'call permissions', method: 'PUT', path: '/permissions/call', body: { permissions: 4 }, expect: moderators({ oneToOne: [400, 'type'] }) },
  { name: 'favorite', method: 'POST', path: '/favorite', expect: loggedInParticipants },
  { name: 'unfavorite', method: 'DELETE', path: '/favorite', expect: loggedInParticipants },
  ...(['archive', 'important', 'sensitive'] as const).flatMap((mark) => [
    { name: mark, method: 'POST', path: `/${mark}`, expect: loggedInParticipants },
    { name: `un${mark}`, method: 'DELETE', path: `/${mark}`, expect: loggedInParticipants },
  ]),
  { name: 'notify', method: 'POST', path: '/notify', body: { level: 2 }, expect: loggedInParticipants },
  { name: 'notify-calls', method: 'POST', path: '/notify-calls', body: { level: 0 }, expect: loggedInParticipants },
  { name: 'message expiration', method: 'POST', path: '/message-expiration', body: { seconds: 3600 }, expect: moderators({ oneToOne: OK }) },
  { name: 'listable', method: 'PUT', path: '/listable', body: { scope: 1 }, expect: moderators({ loggedInOnly: true, oneToOne: [400, 'type'] }) },
  { name: 'lobby', method: 'PUT', path: '/webinar/lobby', body: { state: 1 }, expect: loginThenModerators([400, 'type']) },
  { name: 'avatar delete', method: 'DELETE', path: '/avatar', expect: moderators({ oneToOne: OK }) },
];

for (const dialect of dialects()) {
  describe(`who may do what on conversations [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob', 'carol', 'dave', 'erin'] });
    let n = 0;

    /**
     * A conversation of the given type with every kind of caller it can have: alice owner, bob
     * moderator, carol user, dave self-joined, a guest and a guest moderator; erin is a stranger.
     */
    async function fixture(type: Tested): Promise<{ token: string; callers: Map<Kind, Caller | undefined> }> {
      n++;
      const callers = new Map<Kind, Caller | undefined>([
        ['owner', as('alice')],
        ['stranger', as('erin')],
        ['anonymous', undefined],
      ]);
      if (type === RoomType.ONE_TO_ONE) {
        // A one-to-one conversation per fixture: alice with a fresh user (both owners).
        const other = `peer${n}`;
        await createUser(t.p, other);
        const r = await createRoom(t.p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: other });
        return { token: r.token, callers };
      }
      const r = await createRoom(t.p, 'alice', { roomType: type, roomName: `Room ${n}` });
      await seedUser(t.p, r.token, 'bob', ParticipantType.MODERATOR);
      await seedUser(t.p, r.token, 'carol', ParticipantType.USER);
      callers.set('moderator', as('bob'));
      callers.set('user', as('carol'));
      if (type === RoomType.PUBLIC) {
        await seedUser(t.p, r.token, 'dave', ParticipantType.USER_SELF_JOINED);
        callers.set('selfJoined', as('dave'));
        callers.set('guest', (await joinGuest(t.p, r.token)).caller);
        callers.set('guestModerator', (await joinGuest(t.p, r.token, ParticipantType.GUEST_MODERATOR)).caller);
      }
      return { token: r.token, callers };
    }

    const send = (e: Endpoint, token: string, who: Caller | undefined) => t.call(e.method, `${V4}/room/${token}${e.path}`, { as: who, body: e.body });

    for (const e of ENDPOINTS) {
      for (const type of [RoomType.ONE_TO_ONE, RoomType.GROUP, RoomType.PUBLIC] as Tested[]) {
        it(`${e.method} /room/{token}${e.path} (${e.name}) on type ${type}`, async () => {
          const kinds = kindsFor(type);
          // Refusals first, then successes, so a success (make group drops guests) cannot change a later row.
          const order = [...kinds].sort((a, b) => Number(e.expect(a, type)[0] === 200) - Number(e.expect(b, type)[0] === 200));
          const shared = await fixture(type);
          const got: string[] = [];
          const want: string[] = [];
          for (const kind of order) {
            const expected = e.expect(kind, type);
            const f = e.destructive && expected[0] === 200 ? await fixture(type) : shared;
            const r = await send(e, f.token, f.callers.get(kind));
            got.push(`${kind}: ${r.status}${r.status >= 400 ? ' ' + r.data?.error : ''}`);
            want.push(`${kind}: ${expected[0]}${expected[0] >= 400 ? ' ' + expected[1] : ''}`);
            if (r.status === 200 && e.method !== 'DELETE') assert.equal(r.data.token, f.token, `${kind} gets the record`);
          }
          assert.deepEqual(got, want);
        });
      }
    }

    describe('endpoints without a token', () => {
      it('GET /room, POST /room and GET /listed-room: users 200/201, guests and anonymous 401', async () => {
        const pub = await fixture(3);
        const guest = pub.callers.get('guest');
        const cases: Array<[string, string, Record<string, unknown> | undefined, number]> = [
          ['GET', '/room', undefined, 200],
          ['POST', '/room', { roomType: RoomType.GROUP, roomName: 'New' }, 201],
          ['GET', '/listed-room', undefined, 200],
        ];
        for (const [method, path, body, ok] of cases) {
          assert.equal((await t.call(method, `${V4}${path}`, { as: as('carol'), body })).status, ok, `${method} ${path} user`);
          for (const who of [guest, undefined]) {
            const r = await t.call(method, `${V4}${path}`, { as: who, body });
            assert.equal(r.status, 401, `${method} ${path} ${who ? 'guest' : 'anonymous'}`);
            assert.equal(r.meta.statuscode, 997);
          }
        }
      });

      it('users outside a non-empty allowed_groups get 403 on every conversation endpoint', async () => {
        const f = await fixture(2);
        await t.p.services.directory.createGroup('talkers');
        await t.p.services.appConfig.set('allowed_groups', '["talkers"]');
        try {
          for (const e of ENDPOINTS) {
            const r = await send(e, f.token, as('carol'));
            assert.deepEqual([r.status, r.data.error], [403, 'allowed_groups'], e.name);
          }
        } finally {
          await t.p.services.appConfig.set('allowed_groups', '[]');
        }
      });
    });
  });
}
