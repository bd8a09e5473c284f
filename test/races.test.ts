/**
 * Invariants held by the database under simultaneous requests to two `parley serve` processes on
 * one database (one PostgreSQL schema with PARLEY_TEST_PG, and one SQLite file), each race run
 * 100 rounds:
 * - one one-to-one conversation per pair (unique index on the pair): 201 for one caller, 200
 *   with the same token for the other;
 * - one note-to-self conversation per user (unique index rooms_note_to_self): both first
 *   requests answer the same conversation;
 * - a conversation never loses its last moderator (contract: "400 no other moderators or owners
 *   would be left"): two moderators demoting each other, or both leaving, at the same moment;
 * - one pin per message (the room's row lock and a conditional update): two moderators pinning
 *   the same message at once post one `message_pinned`, and unpinning it at once one
 *   `message_unpinned`;
 * - a deletion and a locked change of one conversation (promoting a moderator) both answer,
 *   without a deadlock: the deletion locks the conversation's row first, as the change does;
 * - breakout rooms are configured once (the parent's row lock): of three simultaneous
 *   configurations one makes the rooms and two get 400 `room`; one racing the parent's deletion
 *   leaves no breakout room behind; a participant switching to two breakout rooms at once ends
 *   in one;
 * - walks over many conversations (a user's deletion, a group's new member) skip one deleted
 *   meanwhile; a user's deletion decides under each conversation's lock whether it was the
 *   last user there (and then deletes it);
 * - a participant's permissions set while they are promoted never undo the promotion;
 * - a reaction or a vote racing the deletion of its message or poll (one message, or the whole
 *   history) is refused or deleted with it, never left behind;
 * - a call join racing the lobby or read-only switch is refused or taken out by it, never left
 *   in the call behind it;
 * - a scheduled message is posted once (a conditional claim): two `jobs:run scheduled-messages`
 *   processes at once post 200 due messages once each;
 * - the brute-force cap counts across processes: 100 simultaneous wrong logins from one address
 *   split over both processes run at most the cap of password checks;
 * - so does a rate limit (one locked step): 100 simultaneous messages with a mention by guests
 *   from one address over both processes store exactly 50 (Talk's daily cap) and refuse 50.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { dropSchema, openDatabase, type Db } from '../src/db/database.js';
import { admin, basic, dialects, freshEnv, passwordOf } from './helpers/parley.js';
import { ocs, serve, stop, type Proc } from './helpers/processes.js';
import { spawnCli } from './helpers/cli.js';
import { V4 } from './helpers/rooms.js';
import { requestFrom, secretChecks } from './helpers/throttle.js';
import { ParticipantType, RoomType } from './helpers/fixtures.js';

const ROUNDS = 100;
/** Rounds on distinct conversations run this many at a time (each round is still one race). */
const BATCH = 10;

/** Runs `round(i)` for i < ROUNDS, BATCH at a time. */
async function rounds(round: (i: number) => Promise<void>): Promise<void> {
  for (let i = 0; i < ROUNDS; i += BATCH) await Promise.all(Array.from({ length: BATCH }, (_, j) => round(i + j)));
}
const CAP = 8;
const ADMIN = basic(admin.user!, admin.password!);
const as = (user: string) => basic(user, passwordOf(user));

for (const dialect of dialects()) {
  describe(`races between two processes on one ${dialect === 'postgres' ? 'PostgreSQL schema' : 'SQLite file'}`, () => {
    let env: Record<string, string>;
    let a: Proc | undefined;
    let b: Proc | undefined;

    before(async () => {
      env = freshEnv(dialect, { BRUTE_FORCE_MAX_ATTEMPTS: String(CAP), BRUTE_FORCE_DELAY_MS: '1' });
      a = await serve(env);
      b = await serve(env);
      assert.equal((await ocs(a, 'POST', '/cloud/groups', ADMIN, { groupid: 'crew' })).status, 200);
      for (const u of ['alice', 'bob', 'carol', 'dave']) {
        const r = await ocs(a, 'POST', '/cloud/users', ADMIN, { userid: u, password: passwordOf(u), 'groups[]': 'crew' });
        assert.equal(r.status, 200, JSON.stringify(r.data));
      }
      const cfg = await ocs(a, 'POST', '/apps/provisioning_api/api/v1/config/apps/spreed/delete_one_to_one_conversations', ADMIN, { value: '1' });
      assert.equal(cfg.status, 200);
    });
    after(async () => {
      await Promise.all([stop(a), stop(b)]);
      if (env.DATABASE_URL && env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
      fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
    });

    it(`simultaneous one-to-one creation for one pair makes one conversation (${ROUNDS} rounds)`, async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const [x, y] = await Promise.all([
          ocs(a!, 'POST', `${V4}/room`, as('alice'), { roomType: '1', invite: 'bob' }),
          ocs(b!, 'POST', `${V4}/room`, as('bob'), { roomType: '1', invite: 'alice' }),
        ]);
        assert.deepEqual([x.status, y.status].sort(), [200, 201], `round ${i}: ${JSON.stringify([x, y])}`);
        assert.equal(x.data.token, y.data.token, `round ${i}`);
        // Leaving deletes it (delete_one_to_one_conversations), so the next round starts afresh.
        assert.equal((await ocs(a!, 'DELETE', `${V4}/room/${x.data.token}/participants/self`, as('alice'))).status, 200);
      }
      const left = await ocs(b!, 'GET', `${V4}/room`, as('bob'));
      assert.equal(left.data.filter((r: { type: number }) => r.type === RoomType.ONE_TO_ONE).length, 0);
    });

    it(`simultaneous first requests for a user's note-to-self make one conversation (${ROUNDS} rounds)`, async () => {
      for (let i = 0; i < ROUNDS; i++) {
        const [x, y] = await Promise.all([a!, b!].map((p) => ocs(p, 'GET', `${V4}/room/note-to-self`, as('carol'))));
        assert.deepEqual([x.status, y.status], [200, 200], `round ${i}: ${JSON.stringify([x, y])}`);
        assert.equal(x.data.token, y.data.token, `round ${i}`);
        // Leaving it, its only member, deletes it: the next round creates it afresh.
        assert.equal((await ocs(b!, 'DELETE', `${V4}/room/${x.data.token}/participants/self`, as('carol'))).status, 200);
      }
      const left = await ocs(a!, 'GET', `${V4}/room`, as('carol'));
      assert.equal(left.data.filter((r: { type: number }) => r.type === RoomType.NOTE_TO_SELF).length, 0);
    });

    /** A group conversation whose moderators are bob and carol only (alice, the creator, has left), and dave. */
    async function twoModerators(): Promise<{ token: string; bob: number; carol: number }> {
      const room = await ocs(a!, 'POST', `${V4}/room`, as('alice'), { roomType: '2', invite: 'crew', source: 'groups' });
      assert.equal(room.status, 201, JSON.stringify(room.data));
      const token = room.data.token;
      const people = (await ocs(a!, 'GET', `${V4}/room/${token}/participants`, as('alice'))).data as Array<{ actorId: string; attendeeId: number }>;
      const id = (u: string) => people.find((p) => p.actorId === u)!.attendeeId;
      for (const u of ['bob', 'carol']) {
        assert.equal((await ocs(a!, 'POST', `${V4}/room/${token}/moderators`, as('alice'), { attendeeId: String(id(u)) })).status, 200);
      }
      assert.equal((await ocs(a!, 'DELETE', `${V4}/room/${token}/participants/self`, as('alice'))).status, 200);
      return { token, bob: id('bob'), carol: id('carol') };
    }

    async function moderatorsOf(token: string): Promise<string[]> {
      const people = (await ocs(a!, 'GET', `${V4}/room/${token}/participants`, as('dave'))).data as Array<{ actorId: string; participantType: number }>;
      return people.filter((p) => p.participantType === ParticipantType.OWNER || p.participantType === ParticipantType.MODERATOR).map((p) => p.actorId);
    }

    it(`two moderators demoting each other at once leave one moderator (${ROUNDS} rounds)`, async () => {
      await rounds(async (i) => {
        const room = await twoModerators();
        const [x, y] = await Promise.all([
          ocs(a!, 'DELETE', `${V4}/room/${room.token}/moderators`, as('bob'), { attendeeId: String(room.carol) }),
          ocs(b!, 'DELETE', `${V4}/room/${room.token}/moderators`, as('carol'), { attendeeId: String(room.bob) }),
        ]);
        assert.deepEqual([x.status, y.status].sort(), [200, 403], `round ${i}: ${JSON.stringify([x, y])}`);
        assert.equal((await moderatorsOf(room.token)).length, 1, `round ${i}`);
      });
    });

    it(`two moderators leaving at once: one leaves, the other gets 400 (${ROUNDS} rounds)`, async () => {
      await rounds(async (i) => {
        const room = await twoModerators();
        const [x, y] = await Promise.all([
          ocs(a!, 'DELETE', `${V4}/room/${room.token}/participants/self`, as('bob')),
          ocs(b!, 'DELETE', `${V4}/room/${room.token}/participants/self`, as('carol')),
        ]);
        assert.deepEqual([x.status, y.status].sort(), [200, 400], `round ${i}: ${JSON.stringify([x, y])}`);
        assert.equal([x, y].find((r) => r.status === 400)!.data.error, 'last-moderator');
        assert.equal((await moderatorsOf(room.token)).length, 1, `round ${i}`);
      });
    });

    it(`two moderators pinning one message at once post one message_pinned, and unpinning it at once one message_unpinned (${ROUNDS} rounds)`, async () => {
      const room = await twoModerators();
      const V1 = '/apps/spreed/api/v1';
      await rounds(async (i) => {
        const sent = await ocs(a!, 'POST', `${V1}/chat/${room.token}`, as('dave'), { message: `pin race ${i}` });
        assert.equal(sent.status, 201, JSON.stringify(sent.data));
        const path = `${V1}/chat/${room.token}/${sent.data.id}/pin`;
        for (const method of ['POST', 'DELETE']) {
          const [x, y] = await Promise.all([ocs(a!, method, path, as('bob')), ocs(b!, method, path, as('carol'))]);
          assert.deepEqual([x.status, y.status], [200, 200], `round ${i} ${method}: ${JSON.stringify([x, y])}`);
          assert.equal([x, y].filter((r) => r.data !== null).length, 1, `round ${i} ${method}: one system message, ${JSON.stringify([x, y])}`);
        }
      });
      const record = await ocs(b!, 'GET', `${V4}/room/${room.token}`, as('dave'));
      assert.equal(record.data.lastPinnedId, 0, 'every pin ended');
    });

    /** A group conversation of alice's with the crew (alice its owner): its token and bob's attendee id. */
    async function crewRoom(): Promise<{ token: string; bob: number }> {
      const room = await ocs(a!, 'POST', `${V4}/room`, as('alice'), { roomType: '2', invite: 'crew', source: 'groups' });
      assert.equal(room.status, 201, JSON.stringify(room.data));
      const people = (await ocs(a!, 'GET', `${V4}/room/${room.data.token}/participants`, as('alice'))).data as Array<{ actorId: string; attendeeId: number }>;
      return { token: room.data.token, bob: people.find((p) => p.actorId === 'bob')!.attendeeId };
    }

    /** The conversations alice is in: tokens, and objectId for breakout rooms. */
    async function alicesRooms(): Promise<Array<{ token: string; objectType: string; objectId: string }>> {
      const list = await ocs(b!, 'GET', `${V4}/room`, as('alice'));
      assert.equal(list.status, 200);
      return list.data;
    }

    /**
     * One request as alice from a client address of its own (127.0.r.n): a request that loses a
     * race to a deletion answers 404, which counts against its address's brute-force cap of 8.
     */
    const from = (p: Proc, who: string | null, method: string, path: string, round: number, form?: Record<string, string>) =>
      requestFrom(p.url, method, path, `127.0.${100 + Math.floor(round / 200)}.${(round % 200) + 2}`, {
        authorization: who === null ? undefined : as(who),
        form,
      }).then((r) => ({ status: r.status, data: r.body?.ocs?.data }));
    const asAlice = (p: Proc, method: string, path: string, round: number, form?: Record<string, string>) => from(p, 'alice', method, path, round, form);

    /** Runs `read` on the suite's database, opened for it and closed after. */
    async function withDb<T>(read: (db: Db) => Promise<T>): Promise<T> {
      const db = await openDatabase({ databaseUrl: env.DATABASE_URL, schema: env.DATABASE_SCHEMA, dataDir: env.DATA_DIR });
      try {
        return await read(db);
      } finally {
        await db.close();
      }
    }

    /** Asserts that no row of a deleted conversation or attendee is left (read from the database). */
    async function assertNothingLeftBehind(): Promise<void> {
      await withDb(async (db) => {
        const inRooms = db.kysely.selectFrom('rooms').select('id');
        // Not notifications: one written after a commit can still land for a conversation
        // deleted meanwhile, and reading drops it as Talk's notifier does (notifications.ts).
        const orphans = async (table: 'chat_messages' | 'attendees' | 'polls' | 'scheduled_messages' | 'chat_reminders') =>
          Number(
            (
              await db.kysely
                .selectFrom(table)
                .select((eb) => eb.fn.countAll<number>().as('n'))
                .where('room_id', 'not in', inRooms)
                .executeTakeFirstOrThrow()
            ).n,
          );
        for (const table of ['chat_messages', 'attendees', 'polls', 'scheduled_messages', 'chat_reminders'] as const)
          assert.equal(await orphans(table), 0, `rows of ${table} whose conversation is gone`);
        const sessions = await db.kysely
          .selectFrom('sessions')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('attendee_id', 'not in', db.kysely.selectFrom('attendees').select('id'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(sessions.n), 0, 'sessions whose attendee is gone');
      });
    }

    it(`deleting a conversation while a moderator is promoted in it: both answer, the conversation is gone (${ROUNDS} rounds)`, async () => {
      // The deletion locks the conversation before it removes attendees, as every locked change
      // does, so the two cannot deadlock on PostgreSQL (which answered 500 for one of them).
      const rooms: string[] = [];
      await rounds(async (i) => {
        const room = await crewRoom();
        rooms.push(room.token);
        const [x, y] = await Promise.all([
          asAlice(a!, 'DELETE', `${V4}/room/${room.token}`, i),
          asAlice(b!, 'POST', `${V4}/room/${room.token}/moderators`, i, { attendeeId: String(room.bob) }),
        ]);
        assert.equal(x.status, 200, `round ${i}: ${JSON.stringify([x, y])}`);
        assert.ok([200, 404].includes(y.status), `round ${i}: ${JSON.stringify([x, y])}`);
      });
      const left = (await alicesRooms()).filter((r) => rooms.includes(r.token));
      assert.deepEqual(left, [], 'every conversation was deleted');
    });

    it(`three simultaneous breakout configurations make one set of rooms (${ROUNDS / 4} rounds)`, async () => {
      for (let i = 0; i < ROUNDS / 4; i++) {
        const room = await crewRoom();
        const all = await Promise.all(
          [a!, b!, a!].map((p) => asAlice(p, 'POST', `/apps/spreed/api/v1/breakout-rooms/${room.token}`, i, { mode: '1', amount: '2' })),
        );
        assert.deepEqual(
          all.map((r) => r.status).sort(),
          [200, 400, 400],
          `round ${i}: ${JSON.stringify(all.map((r) => [r.status, r.status === 200 ? 'ok' : r.data]))}`,
        );
        for (const r of all.filter((r) => r.status === 400)) assert.equal(r.data.error, 'room');
        const children = (await alicesRooms()).filter((r) => r.objectType === 'room' && r.objectId === room.token);
        assert.equal(children.length, 2, `round ${i}`);
      }
    });

    it(`configuring breakout rooms while the conversation is deleted leaves no breakout room behind (${ROUNDS / 4} rounds)`, async () => {
      const parents: string[] = [];
      for (let i = 0; i < ROUNDS / 4; i++) {
        const room = await crewRoom();
        parents.push(room.token);
        const [x, y] = await Promise.all([
          asAlice(a!, 'POST', `/apps/spreed/api/v1/breakout-rooms/${room.token}`, 1000 + i, { mode: '1', amount: '2' }),
          asAlice(b!, 'DELETE', `${V4}/room/${room.token}`, 1000 + i),
        ]);
        assert.ok([200, 404].includes(x.status), `round ${i}: ${JSON.stringify([x.status, y])}`);
        assert.equal(y.status, 200, `round ${i}: ${JSON.stringify([x.status, y])}`);
      }
      const left = (await alicesRooms()).filter((r) => parents.includes(r.token) || parents.includes(r.objectId));
      assert.deepEqual(left, [], 'no parent and no breakout room is left');
    });

    it(`two simultaneous switches to different breakout rooms leave the participant in one (${ROUNDS / 4} rounds)`, async () => {
      const BR = '/apps/spreed/api/v1/breakout-rooms';
      const room = await crewRoom();
      assert.equal((await ocs(a!, 'POST', `${BR}/${room.token}`, as('alice'), { mode: '3', amount: '3' })).status, 200);
      assert.equal((await ocs(a!, 'POST', `${BR}/${room.token}/rooms`, as('alice'))).status, 200);
      const children = (await alicesRooms()).filter((r) => r.objectId === room.token).map((r) => r.token);
      assert.equal(children.length, 3);
      for (let i = 0; i < ROUNDS / 4; i++) {
        const [x, y] = await Promise.all([
          ocs(a!, 'POST', `${BR}/${room.token}/switch`, as('bob'), { target: children[i % 3] }),
          ocs(b!, 'POST', `${BR}/${room.token}/switch`, as('bob'), { target: children[(i + 1) % 3] }),
        ]);
        assert.deepEqual([x.status, y.status], [200, 200], `round ${i}: ${JSON.stringify([x.data, y.data])}`);
        const bobs = (await ocs(b!, 'GET', `${V4}/room`, as('bob'))).data as Array<{ token: string }>;
        assert.equal(bobs.filter((r) => children.includes(r.token)).length, 1, `round ${i}: bob is in one breakout room`);
      }
    });

    it(`a moderator adding a participant to one breakout room while they switch to another leaves them in one (${ROUNDS / 4} rounds)`, async () => {
      const BR = '/apps/spreed/api/v1/breakout-rooms';
      const room = await crewRoom();
      assert.equal((await ocs(a!, 'POST', `${BR}/${room.token}`, as('alice'), { mode: '3', amount: '3' })).status, 200);
      assert.equal((await ocs(a!, 'POST', `${BR}/${room.token}/rooms`, as('alice'))).status, 200);
      const children = (await alicesRooms()).filter((r) => r.objectId === room.token).map((r) => r.token);
      for (let i = 0; i < ROUNDS / 4; i++) {
        const [x, y] = await Promise.all([
          ocs(a!, 'POST', `${V4}/room/${children[i % 3]}/participants`, as('alice'), { newParticipant: 'carol', source: 'users' }),
          ocs(b!, 'POST', `${BR}/${room.token}/switch`, as('carol'), { target: children[(i + 1) % 3] }),
        ]);
        assert.deepEqual([x.status, y.status], [200, 200], `round ${i}: ${JSON.stringify([x.data, y.data])}`);
        const carols = (await ocs(b!, 'GET', `${V4}/room`, as('carol'))).data as Array<{ token: string }>;
        assert.equal(carols.filter((r) => children.includes(r.token)).length, 1, `round ${i}: carol is in one breakout room`);
      }
    });

    it(`messages, renames and setting changes racing the deletion of their conversation leave nothing of it behind (${ROUNDS / 2} rounds)`, async () => {
      // A change that read the conversation before the deletion committed must not write after
      // it: its system message (or message) would outlive the conversation. Each answers 200 or
      // 201 when it came first, or 404 `room`.
      for (let i = 0; i < ROUNDS / 2; i++) {
        const room = await crewRoom();
        const n = 2000 + i;
        const remindOf = await asAlice(a!, 'POST', `/apps/spreed/api/v1/chat/${room.token}`, n, { message: `remind me ${i}` });
        assert.equal(remindOf.status, 201);
        const all = await Promise.all([
          asAlice(b!, 'POST', `/apps/spreed/api/v1/chat/${room.token}/${remindOf.data.id}/reminder`, n, {
            timestamp: String(Math.floor(Date.now() / 1000) + 3600),
          }),
          asAlice(a!, 'PUT', `${V4}/room/${room.token}`, n, { roomName: `renamed ${i}` }),
          asAlice(b!, 'PUT', `${V4}/room/${room.token}/description`, n, { description: `described ${i}` }),
          asAlice(a!, 'POST', `/apps/spreed/api/v1/chat/${room.token}`, n, { message: `hello ${i}` }),
          asAlice(b!, 'POST', `${V4}/room/${room.token}/message-expiration`, n, { seconds: '3600' }),
          asAlice(a!, 'POST', `/apps/spreed/api/v1/chat/${room.token}/schedule`, n, {
            message: `later ${i}`,
            sendAt: String(Math.floor(Date.now() / 1000) + 3600),
          }),
          asAlice(b!, 'POST', `/apps/spreed/api/v1/poll/${room.token}`, n, { question: `draft ${i}`, 'options[0]': 'one', 'options[1]': 'two', draft: '1' }),
          asAlice(a!, 'DELETE', `${V4}/room/${room.token}`, n),
        ]);
        const text = `round ${i}: ${JSON.stringify(all.map((r) => [r.status, r.status >= 400 ? r.data : '']))}`;
        assert.equal(all.at(-1)!.status, 200, text);
        for (const r of all.slice(0, -1)) {
          assert.ok([200, 201, 404].includes(r.status), text);
          // The reminder's message may already be gone with its conversation (404 `message`).
          if (r.status === 404) assert.ok(['room', 'message'].includes(r.data.error), text);
        }
      }
      await assertNothingLeftBehind();
    });

    it(`joins racing the deletion of their conversation answer 200 or 404 room, and leave no attendee or session behind (${ROUNDS / 2} rounds)`, async () => {
      // A member's join, a user's self-join of a public conversation and a guest's join, while
      // the owner deletes it: a session is inserted only while its attendee exists, and an
      // attendee only under the conversation's lock.
      for (let i = 0; i < ROUNDS / 2; i++) {
        const room = await ocs(a!, 'POST', `${V4}/room`, as('alice'), { roomType: '3', roomName: `open ${i}` });
        assert.equal(room.status, 201);
        const token = room.data.token;
        assert.equal((await ocs(a!, 'POST', `${V4}/room/${token}/participants`, as('alice'), { newParticipant: 'bob', source: 'users' })).status, 200);
        const n = 3000 + i;
        const all = await Promise.all([
          from(b!, 'bob', 'POST', `${V4}/room/${token}/participants/active`, n),
          from(a!, 'carol', 'POST', `${V4}/room/${token}/participants/active`, n),
          from(b!, null, 'POST', `${V4}/room/${token}/participants/active`, n),
          from(a!, 'alice', 'DELETE', `${V4}/room/${token}`, n),
        ]);
        const text = `round ${i}: ${JSON.stringify(all.map((r) => [r.status, r.status >= 400 ? r.data : '']))}`;
        assert.equal(all[3].status, 200, text);
        for (const r of all.slice(0, 3)) {
          assert.ok([200, 404].includes(r.status), text);
          if (r.status === 404) assert.equal(r.data.error, 'room', text);
        }
      }
      await assertNothingLeftBehind();
    });

    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    async function newUser(id: string): Promise<void> {
      const r = await ocs(a!, 'POST', '/cloud/users', ADMIN, { userid: id, password: passwordOf(id) });
      assert.equal(r.status, 200, JSON.stringify(r.data));
    }

    it(`deleting a user while their conversations are deleted deletes the user (${ROUNDS / 5} rounds)`, async () => {
      // The user's removal walks their conversations under each one's lock; one deleted since
      // the walk listed it is skipped, not a 404 that stops the account's deletion halfway.
      for (let i = 0; i < ROUNDS / 5; i++) {
        const v = `gone${i}`;
        await newUser(v);
        const tokens: string[] = [];
        for (let k = 0; k < 4; k++) {
          const room = await ocs(a!, 'POST', `${V4}/room`, as('alice'), { roomType: '2', roomName: `with ${v} ${k}` });
          await ocs(a!, 'POST', `${V4}/room/${room.data.token}/participants`, as('alice'), { newParticipant: v, source: 'users' });
          tokens.push(room.data.token);
        }
        const [gone, ...deleted] = await Promise.all([
          ocs(b!, 'DELETE', `/cloud/users/${v}`, ADMIN),
          ...tokens.map(async (token, k) => {
            await pause(k * 3);
            return ocs(k % 2 ? a! : b!, 'DELETE', `${V4}/room/${token}`, as('alice'));
          }),
        ]);
        assert.equal(gone.status, 200, `round ${i}: ${JSON.stringify(gone.data)}`);
        assert.deepEqual(
          deleted.map((r) => r.status),
          [200, 200, 200, 200],
          `round ${i}`,
        );
        assert.equal((await ocs(a!, 'GET', `/cloud/users/${v}`, ADMIN)).status, 404, `round ${i}: the account is gone`);
      }
      await assertNothingLeftBehind();
    });

    it(`deleting a user while the other user leaves their conversation deletes it, never leaving it without users (${ROUNDS / 5} rounds)`, async () => {
      const tokens: string[] = [];
      for (let i = 0; i < ROUNDS / 5; i++) {
        const [v, w] = [`pairv${i}`, `pairw${i}`];
        await newUser(v);
        await newUser(w);
        const room = await ocs(a!, 'POST', `${V4}/room`, as(v), { roomType: '2', roomName: `pair ${i}` });
        await ocs(a!, 'POST', `${V4}/room/${room.data.token}/participants`, as(v), { newParticipant: w, source: 'users' });
        tokens.push(room.data.token);
        const [gone, left] = await Promise.all([
          ocs(b!, 'DELETE', `/cloud/users/${v}`, ADMIN),
          ocs(a!, 'DELETE', `${V4}/room/${room.data.token}/participants/self`, as(w)),
        ]);
        assert.equal(gone.status, 200, `round ${i}: ${JSON.stringify(gone.data)}`);
        assert.equal(left.status, 200, `round ${i}: ${JSON.stringify(left.data)}`);
      }
      await withDb(async (db) => {
        const left = await db.kysely.selectFrom('rooms').select('token').where('token', 'in', tokens).execute();
        assert.deepEqual(left, [], 'every conversation went with its last user');
      });
      await assertNothingLeftBehind();
    });

    it(`adding a user to a group while conversations of the group are deleted adds them to the others (${ROUNDS / 5} rounds)`, async () => {
      for (let i = 0; i < ROUNDS / 5; i++) {
        const g = `team${i}`;
        assert.equal((await ocs(a!, 'POST', '/cloud/groups', ADMIN, { groupid: g })).status, 200);
        assert.equal((await ocs(a!, 'POST', '/cloud/users/bob/groups', ADMIN, { groupid: g })).status, 200);
        const tokens: string[] = [];
        for (let k = 0; k < 3; k++) {
          tokens.push((await ocs(a!, 'POST', `${V4}/room`, as('alice'), { roomType: '2', roomName: `${g} ${k}`, invite: g, source: 'groups' })).data.token);
        }
        const kept = (await ocs(a!, 'POST', `${V4}/room`, as('alice'), { roomType: '2', roomName: `${g} kept`, invite: g, source: 'groups' })).data.token;
        const [added] = await Promise.all([
          ocs(b!, 'POST', '/cloud/users/dave/groups', ADMIN, { groupid: g }),
          ...tokens.map(async (token, k) => {
            await pause(k * 2);
            return ocs(a!, 'DELETE', `${V4}/room/${token}`, as('alice'));
          }),
        ]);
        assert.equal(added.status, 200, `round ${i}: ${JSON.stringify(added.data)}`);
        const people = (await ocs(a!, 'GET', `${V4}/room/${kept}/participants`, as('alice'))).data as Array<{ actorId: string }>;
        assert.ok(
          people.some((p) => p.actorId === 'dave'),
          `round ${i}: dave is in the group's remaining conversation`,
        );
      }
      await assertNothingLeftBehind();
    });

    it(`adding an e-mail guest while the conversation is deleted answers 200 or 404 room and leaves no guest behind (${ROUNDS / 2} rounds)`, async () => {
      for (let i = 0; i < ROUNDS / 2; i++) {
        const room = await crewRoom();
        const n = 4000 + i;
        const [x, y] = await Promise.all([
          asAlice(b!, 'POST', `${V4}/room/${room.token}/participants`, n, { newParticipant: `guest${i}@example.com`, source: 'emails' }),
          asAlice(a!, 'DELETE', `${V4}/room/${room.token}`, n),
        ]);
        assert.equal(y.status, 200, `round ${i}: ${JSON.stringify([x, y])}`);
        assert.ok([200, 404].includes(x.status), `round ${i}: ${JSON.stringify([x, y])}`);
      }
      await assertNothingLeftBehind();
    });

    it(`setting a participant's permissions while they are promoted never undoes the promotion (${ROUNDS / 2} rounds)`, async () => {
      for (let i = 0; i < ROUNDS / 2; i++) {
        const room = await crewRoom();
        const [x, y] = await Promise.all([
          ocs(a!, 'PUT', `${V4}/room/${room.token}/attendees/permissions`, as('alice'), { attendeeId: String(room.bob), method: 'set', permissions: '1' }),
          ocs(b!, 'POST', `${V4}/room/${room.token}/moderators`, as('alice'), { attendeeId: String(room.bob) }),
        ]);
        assert.equal(y.status, 200, `round ${i}: ${JSON.stringify([x.data, y.data])}`);
        // Before the promotion it applies (200); after it, a moderator's permissions are fixed (403).
        assert.ok([200, 403].includes(x.status), `round ${i}: ${JSON.stringify([x.data, y.data])}`);
        const people = (await ocs(a!, 'GET', `${V4}/room/${room.token}/participants`, as('alice'))).data as Array<{ actorId: string; participantType: number }>;
        assert.equal(people.find((p) => p.actorId === 'bob')!.participantType, ParticipantType.MODERATOR, `round ${i}: bob is still a moderator`);
      }
    });

    it(`reactions and votes racing a message deletion or a history clear leave no reaction or vote behind (${ROUNDS / 4} rounds)`, async () => {
      const V1 = '/apps/spreed/api/v1';
      const room = await crewRoom();
      const ok = (r: { status: number }, allowed: number[], what: string) => assert.ok(allowed.includes(r.status), `${what}: ${JSON.stringify(r)}`);
      for (let i = 0; i < ROUNDS / 4; i++) {
        const m = await ocs(a!, 'POST', `${V1}/chat/${room.token}`, as('bob'), { message: `react to me ${i}` });
        const [react, del] = await Promise.all([
          ocs(a!, 'POST', `${V1}/reaction/${room.token}/${m.data.id}`, as('carol'), { reaction: '👍' }),
          ocs(b!, 'DELETE', `${V1}/chat/${room.token}/${m.data.id}`, as('bob')),
        ]);
        ok(react, [201, 400], `round ${i} reaction`);
        ok(del, [200, 202], `round ${i} deletion`);
        const n = await ocs(a!, 'POST', `${V1}/chat/${room.token}`, as('bob'), { message: `and me ${i}` });
        const poll = await ocs(
          a!,
          'POST',
          `${V1}/poll/${room.token}`,
          as('alice'),
          new URLSearchParams([
            ['question', `q ${i}`],
            ['options[]', 'yes'],
            ['options[]', 'no'],
            ['resultMode', '1'],
            ['maxVotes', '0'],
          ]),
        );
        assert.equal(poll.status, 201, JSON.stringify(poll.data));
        const [react2, vote1, vote2, clear] = await Promise.all([
          ocs(a!, 'POST', `${V1}/reaction/${room.token}/${n.data.id}`, as('carol'), { reaction: '👍' }),
          ocs(a!, 'POST', `${V1}/poll/${room.token}/${poll.data.id}`, as('dave'), { 'optionIds[]': '1' }),
          ocs(b!, 'POST', `${V1}/poll/${room.token}/${poll.data.id}`, as('carol'), { 'optionIds[]': '0' }),
          ocs(b!, 'DELETE', `${V1}/chat/${room.token}`, as('alice')),
        ]);
        ok(react2, [201, 404], `round ${i} reaction`);
        ok(vote1, [200, 400, 404], `round ${i} vote`);
        ok(vote2, [200, 400, 404], `round ${i} vote`);
        ok(clear, [200, 202], `round ${i} clear`);
      }
      await withDb(async (db) => {
        const count = async (q: { executeTakeFirstOrThrow(): Promise<{ n: unknown }> }) => Number((await q.executeTakeFirstOrThrow()).n);
        const k = db.kysely;
        assert.equal(
          await count(
            k
              .selectFrom('chat_messages')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('message_type', '=', 'comment_deleted')
              .where('reactions', '!=', '{}'),
          ),
          0,
          'deleted messages showing reactions',
        );
        assert.equal(
          await count(
            k
              .selectFrom('chat_messages as r')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('r.message_type', '=', 'reaction')
              .where('r.parent_id', 'not in', k.selectFrom('chat_messages').select('id')),
          ),
          0,
          'reactions to messages that are gone',
        );
        assert.equal(
          await count(
            k
              .selectFrom('poll_votes')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('poll_id', 'not in', k.selectFrom('polls').select('id')),
          ),
          0,
          'votes of polls that are gone',
        );
      });
    });

    it(`joining a call while the lobby or read-only is switched on never leaves a participant in the call behind it (${ROUNDS / 2} rounds)`, async () => {
      /** A room session of `who` (POST participants/active): its cookie. */
      const roomSession = async (p: Proc, who: string, token: string): Promise<string> => {
        const res = await fetch(`${p.url}/ocs/v2.php${V4}/room/${token}/participants/active?format=json`, {
          method: 'POST',
          headers: { 'OCS-APIRequest': 'true', Authorization: as(who) },
        });
        assert.equal(res.status, 200);
        return res.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .join('; ');
      };
      await withDb(async (db) => {
        for (let i = 0; i < ROUNDS / 2; i++) {
          const room = await crewRoom();
          const cookie = await roomSession(a!, 'bob', room.token);
          const setting = i % 2 ? { path: 'webinar/lobby', refusal: 412 } : { path: 'read-only', refusal: 403 };
          const [join, set] = await Promise.all([
            fetch(`${a!.url}/ocs/v2.php${V4}/call/${room.token}?format=json`, {
              method: 'POST',
              headers: { 'OCS-APIRequest': 'true', Authorization: as('bob'), Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
              body: 'flags=7',
            }),
            ocs(b!, 'PUT', `${V4}/room/${room.token}/${setting.path}`, as('alice'), { state: '1' }),
          ]);
          assert.equal(set.status, 200, `round ${i}`);
          // Before the switch it joins (and the switch takes it out again); after it, refused.
          assert.ok([200, setting.refusal].includes(join.status), `round ${i}: ${join.status} ${await join.text()}`);
          const inCall = await db.kysely
            .selectFrom('sessions as s')
            .innerJoin('attendees as t', 't.id', 's.attendee_id')
            .innerJoin('rooms as r', 'r.id', 't.room_id')
            .select(['s.in_call', 'r.active_since'])
            .where('r.token', '=', room.token)
            .where('s.in_call', '!=', 0)
            .execute();
          assert.deepEqual(inCall, [], `round ${i}: nobody is in the call behind the ${setting.path} switch`);
        }
      });
    });

    it('two `jobs:run scheduled-messages` processes at once post each due scheduled message once', async () => {
      const room = await twoModerators();
      const V1 = '/apps/spreed/api/v1';
      // Far enough ahead that all 200 are scheduled before it passes on a loaded machine (a CI
      // run once took over 2 s, and the late ones were refused as in the past).
      const sendAt = Math.floor(Date.now() / 1000) + 8;
      const N = 200;
      for (let i = 0; i < N; i += BATCH) {
        const scheduled = await Promise.all(
          Array.from({ length: BATCH }, (_, j) =>
            ocs(j % 2 ? a! : b!, 'POST', `${V1}/chat/${room.token}/schedule`, as('dave'), { message: `later ${i + j}`, sendAt: String(sendAt) }),
          ),
        );
        for (const r of scheduled) assert.equal(r.status, 201, JSON.stringify(r.data));
      }
      while (Date.now() / 1000 <= sendAt) await new Promise((resolve) => setTimeout(resolve, 100));
      const runs = await Promise.all([spawnCli(env, ['jobs:run', 'scheduled-messages']), spawnCli(env, ['jobs:run', 'scheduled-messages'])]);
      const sent = runs.map((r) => {
        assert.equal(r.code, 0, r.stderr);
        return Number(/(\d+) messages sent/.exec(r.stdout)?.[1]);
      });
      // Both processes post (about half each, seen here), and no message twice.
      assert.equal(sent[0] + sent[1], N, `each posted once: ${JSON.stringify(sent)}`);
      const record = await ocs(a!, 'GET', `${V4}/room/${room.token}`, as('dave'));
      assert.equal(record.data.hasScheduledMessages, 0);
      // The history, 200 at a time, newest first (a page short of 200 is the last: the next would be a 304).
      const posted = new Set<string>();
      for (let offset = 0; ;) {
        const page = await ocs(a!, 'GET', `${V1}/chat/${room.token}?lookIntoFuture=0&limit=200&lastKnownMessageId=${offset}`, as('dave'));
        assert.equal(page.status, 200);
        for (const m of page.data as Array<{ id: number; message: string }>) {
          if (!m.message.startsWith('later ')) continue;
          assert.ok(!posted.has(m.message), `${m.message} posted twice`);
          posted.add(m.message);
        }
        if (page.data.length < 200) break;
        offset = Math.min(...page.data.map((m: { id: number }) => m.id));
      }
      assert.equal(posted.size, N);
    });

    it('100 simultaneous guest messages with a mention from one address over both processes store 50 and refuse 50', async () => {
      const room = await ocs(a!, 'POST', `${V4}/room`, as('alice'), { roomType: '3', roomName: 'Open' });
      assert.equal(room.status, 201, JSON.stringify(room.data));
      const token = room.data.token;
      const join = await fetch(`${a!.url}/ocs/v2.php${V4}/room/${token}/participants/active?format=json`, {
        method: 'POST',
        headers: { 'OCS-APIRequest': 'true' },
      });
      const cookie = /parley_session=[^;]+/.exec(join.headers.get('set-cookie') ?? '')?.[0];
      assert.equal(join.status, 200);
      assert.ok(cookie, 'the guest has a session cookie');
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          requestFrom(i % 2 ? a!.url : b!.url, 'POST', `/apps/spreed/api/v1/chat/${token}`, '127.0.0.32', { cookie, form: { message: `@alice ${i}` } }),
        ),
      );
      const statuses = answers.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, 50, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 429).length, 50, JSON.stringify(statuses));
      const history = await ocs(b!, 'GET', `/apps/spreed/api/v1/chat/${token}?lookIntoFuture=0&limit=200`, as('alice'));
      assert.equal((history.data as Array<{ actorType: string }>).filter((m) => m.actorType === 'guests').length, 50);
    });

    it('100 simultaneous wrong logins from one address over both processes run at most the cap of checks', async () => {
      const before = (await secretChecks(a!.url, 'login')) + (await secretChecks(b!.url, 'login'));
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          requestFrom(i % 2 ? a!.url : b!.url, 'GET', '/cloud/user', '127.0.0.31', { authorization: basic('dave', `wrong-${i}`) }),
        ),
      );
      const checks = (await secretChecks(a!.url, 'login')) + (await secretChecks(b!.url, 'login')) - before;
      const statuses = answers.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 401).length, CAP, JSON.stringify(statuses));
      assert.equal(checks, CAP);
      assert.equal((await requestFrom(a!.url, 'GET', '/cloud/user', '127.0.0.31', { authorization: as('dave') })).status, 429);
    });
  });
}
