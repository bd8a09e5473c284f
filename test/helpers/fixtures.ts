/**
 * Test fixtures in one line each, in the style of Immich's server/test/medium specs: a suite
 * calls `useParley(dialect)` once (it registers starting and stopping a real Parley with the
 * suite), then builds what each test needs with `newUser`, `newRoom` and `newGuest`, whose
 * results carry the caller to use. Talk's numbers go by their names (src/domain/constants.ts):
 *
 *   const t = useParley(dialect, { users: ['alice', 'bob'] });
 *   const room = await t.newRoom('alice', { type: RoomType.GROUP, members: { bob: ParticipantType.MODERATOR } });
 *   const guest = await t.newGuest(room);
 *   const r = await t.call('GET', `${V4}/room/${room.token}`, { as: guest.caller });
 *   const id = await t.say(room, 'bob', 'hello');
 *   const [newest] = await t.history(room, 'alice');
 */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { Services } from '../../src/services/index.js';
import { ActorType, ParticipantType, RoomType } from '../../src/domain/constants.js';
import {
  as,
  call,
  createUser,
  passwordOf,
  startParley,
  type CallOptions,
  type CallResult,
  type Caller,
  type DialectName,
  type Parley,
  type StartOptions,
} from './parley.js';
import { createRoom, joinGuest, seedAttendee } from './rooms.js';

export { ActorType, ParticipantType, RoomType };
export { V4, NO_THROTTLE } from './rooms.js';

export type RoomTypeValue = (typeof RoomType)[keyof typeof RoomType];
export type ParticipantTypeValue = (typeof ParticipantType)[keyof typeof ParticipantType];

export interface UserFixture {
  id: string;
  password: string;
  /** Basic credentials of this user, for `call(..., { as })`. */
  caller: Caller;
}

export interface RoomFixture {
  token: string;
  /** The conversation record POST /room answered with. */
  record: any;
}

export interface GuestFixture {
  attendeeId: number;
  /** The guest's session cookie. */
  caller: Caller;
}

export interface NewUserOptions {
  displayName?: string;
  groups?: string[];
  email?: string;
}

export interface NewRoomOptions {
  /** Default RoomType.GROUP. */
  type?: RoomTypeValue;
  /** Default "Room <n>" (one-to-one conversations have no name). */
  name?: string;
  /** The other user of a one-to-one conversation. */
  invite?: string;
  /** Users added besides the owner: ids (ParticipantType.USER) or id → participant type. */
  members?: string[] | Record<string, ParticipantTypeValue>;
  /** Further POST /room fields (password, objectType, ...). */
  body?: Record<string, unknown>;
}

export interface SuiteOptions extends StartOptions {
  /** Users created before the first test (each with passwordOf(id)). */
  users?: string[];
}

export interface Fixture {
  /** The running server (only inside tests and hooks: it starts in the suite's `before`). */
  readonly p: Parley;
  readonly services: Services;
  call(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  newUser(id?: string, opts?: NewUserOptions): Promise<UserFixture>;
  newRoom(owner: string | UserFixture, opts?: NewRoomOptions): Promise<RoomFixture>;
  /** An anonymous guest joined to a public conversation (ParticipantType.GUEST unless given). */
  newGuest(room: string | RoomFixture, type?: ParticipantTypeValue): Promise<GuestFixture>;
  /** Posts a text message to `room` as `who` (answered 201) and returns its id. */
  say(room: string | RoomFixture, who: string | UserFixture, message: string): Promise<number>;
  /** The newest `limit` messages of `room` as `who` reads them, newest first (answered 200). */
  history(room: string | RoomFixture, who: string | UserFixture, limit?: number): Promise<any[]>;
}

const CHAT = '/apps/spreed/api/v1/chat';
const idOf = (x: string | { id: string }): string => (typeof x === 'string' ? x : x.id);
const tokenOf = (x: string | { token: string }): string => (typeof x === 'string' ? x : x.token);

/** Starts a Parley for the surrounding `describe` (closed after its last test) and returns its fixtures. */
export function useParley(dialect: DialectName, opts: SuiteOptions = {}): Fixture {
  let parley: Parley | undefined;
  let users = 0;
  let rooms = 0;
  const fixture: Fixture = {
    get p() {
      if (!parley) throw new Error('useParley: the server starts in before(); use it inside tests and hooks');
      return parley;
    },
    get services() {
      return fixture.p.services;
    },
    call: (method, path, callOpts) => call(fixture.p, method, path, callOpts),
    async newUser(id = `user${++users}`, userOpts = {}) {
      await createUser(fixture.p, id, userOpts);
      return { id, password: passwordOf(id), caller: as(id) };
    },
    async newRoom(owner, roomOpts = {}) {
      const type = roomOpts.type ?? RoomType.GROUP;
      const body: Record<string, unknown> = { roomType: type, ...roomOpts.body };
      if (type === RoomType.ONE_TO_ONE) body.invite = roomOpts.invite;
      else body.roomName = roomOpts.name ?? `Room ${++rooms}`;
      const record = await createRoom(fixture.p, idOf(owner), body);
      const members = Array.isArray(roomOpts.members)
        ? roomOpts.members.map((m) => [m, ParticipantType.USER] as const)
        : Object.entries(roomOpts.members ?? {});
      for (const [id, participantType] of members) {
        await seedAttendee(fixture.p, record.token, { actorType: ActorType.USERS, actorId: id, displayName: id, participantType });
      }
      return { token: record.token, record };
    },
    newGuest: (room, type = ParticipantType.GUEST) => joinGuest(fixture.p, tokenOf(room), type),
    async say(room, who, message) {
      const r = await fixture.call('POST', `${CHAT}/${tokenOf(room)}`, { as: as(idOf(who)), body: { message } });
      assert.equal(r.status, 201, r.text);
      return r.data.id as number;
    },
    async history(room, who, limit = 100) {
      const r = await fixture.call('GET', `${CHAT}/${tokenOf(room)}`, { as: as(idOf(who)), query: { lookIntoFuture: 0, limit } });
      assert.equal(r.status, 200, r.text);
      return r.data as any[];
    },
  };
  before(async () => {
    parley = await startParley(dialect, opts);
    for (const id of opts.users ?? []) await createUser(parley, id);
  });
  after(async () => {
    await parley?.close();
    parley = undefined;
  });
  return fixture;
}

/**
 * Each admin-only route answers 401 (OCS 997) anonymous and 403 `admin` for `user`: the checks
 * the OCS layer makes before the handler runs, so a refused write changes nothing.
 */
export async function assertAdminOnly(t: Fixture, user: string, routes: ReadonlyArray<readonly [string, string, unknown?]>): Promise<void> {
  for (const [method, path, body] of routes) {
    const anon = await t.call(method, path, { body });
    assert.equal(anon.status, 401, `${method} ${path} anonymous`);
    assert.equal(anon.meta.statuscode, 997);
    const refused = await t.call(method, path, { as: as(user), body });
    assert.equal(refused.status, 403, `${method} ${path} as a user`);
    assert.equal(refused.data.error, 'admin');
  }
}
