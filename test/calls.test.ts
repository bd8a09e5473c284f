/**
 * Call API v4 (docs/reference/calls.md#the-call-api) against a real Parley: join, flags, leave, end for
 * everyone, ring; every status; the conversation fields that follow a call (hasCall,
 * callStartTime, callFlag, participantFlags, inCall, canStartCall, callPermissions reset);
 * the in-call branch of the 409 join rule; the call events; the max_call_duration and
 * stale-session jobs ending calls; constant query counts of join and leave.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, startParley, type Caller, type Parley } from './helpers/parley.js';
import { enterRoom, countQueries, createRoom, joinGuest, NO_THROTTLE, roomRow, seedUser, setRoom, V4 } from './helpers/rooms.js';
import { jobs, runJobIfDue } from '../src/jobs/index.js';
import type { EventMap } from '../src/events/event-map.js';
import { RoomType } from './helpers/fixtures.js';

const now = () => Math.floor(Date.now() / 1000);

for (const dialect of dialects()) {
  describe(`calls [${dialect}]`, () => {
    let p: Parley;
    const seen: Array<{ name: keyof EventMap; payload: any }> = [];
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      for (const u of ['owner', 'member', 'other', 'outsider']) await createUser(p, u);
      // Observe the bus as a subscriber would (handlers run in the server's process).
      for (const name of [
        'call.started',
        'call.joined',
        'call.left',
        'call.ended',
        'call.flags-updated',
        'call.ring',
        'call.started.trx',
        'call.ended.trx',
      ] as const) {
        p.services.events.on(name, (payload: any) => void seen.push({ name, payload }));
      }
    });
    after(async () => p.close());

    const events = (name: keyof EventMap, token: string) => seen.filter((e) => e.name === name && e.payload.room.token === token).map((e) => e.payload);
    const config = (key: string, value: string) => p.services.appConfig.set(key, value);

    /** Joins the conversation (a room session) and returns the caller with its cookie. */
    const enter = (user: string, token: string): Promise<Caller> => enterRoom(p, user, token);
    const record = async (who: Caller, token: string) => (await call(p, 'GET', `${V4}/room/${token}`, { as: who })).data;
    const join = (who: Caller, token: string, body: Record<string, unknown> = {}) => call(p, 'POST', `${V4}/call/${token}`, { as: who, body });
    const leave = (who: Caller, token: string, query: Record<string, string> = {}) => call(p, 'DELETE', `${V4}/call/${token}`, { as: who, query });
    async function groupRoom(name: string): Promise<string> {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: name });
      await seedUser(p, room.token, 'member');
      await seedUser(p, room.token, 'other');
      return room.token as string;
    }

    it('a call starts, is joined, changes flags and ends: every call field follows', async () => {
      const token = await groupRoom('Call fields');
      const owner = await enter('owner', token);
      const member = await enter('member', token);
      const before = await record(owner, token);
      assert.deepEqual([before.hasCall, before.callStartTime, before.callFlag, before.participantFlags, before.canStartCall], [false, 0, 0, 0, true]);
      // Call permissions set before the call reset when it ends (contract state table).
      const perm = await call(p, 'PUT', `${V4}/room/${token}/permissions/call`, { as: owner, body: { permissions: 4 + 16 + 128 } });
      assert.equal(perm.status, 200, perm.text);

      const t0 = now();
      const j = await join(owner, token);
      assert.equal(j.status, 200, j.text);
      assert.equal(j.data, null);
      let r = await record(owner, token);
      assert.equal(r.hasCall, true);
      assert.ok(r.callStartTime >= t0 && r.callStartTime <= now(), `callStartTime ${r.callStartTime}`);
      assert.equal(r.callFlag, 7, 'default flags: in call, audio, video');
      assert.equal(r.participantFlags, 7);
      assert.notEqual(r.callPermissions, 0);
      const peers = await call(p, 'GET', `${V4}/call/${token}`, { as: member });
      assert.equal(peers.status, 200);
      assert.deepEqual(
        peers.data.map((x: any) => [x.actorType, x.actorId, x.displayName, x.token, x.sessionId === r.sessionId]),
        [['users', 'owner', 'owner', token, true]],
      );

      // The member joins with audio only (its permissions come from the call permissions: no video bit).
      assert.equal((await join(member, token, { flags: 3 })).status, 200);
      r = await record(member, token);
      assert.equal(r.participantFlags, 3);
      assert.equal(r.callFlag, 7, 'callFlag is the OR of the joins');
      const list = await call(p, 'GET', `${V4}/room/${token}/participants`, { as: owner });
      const inCall = Object.fromEntries(list.data.map((x: any) => [x.actorId, x.inCall]));
      assert.deepEqual(inCall, { owner: 7, member: 3, other: 0 });

      // Flags change (PUT); the room's callFlag keeps what was ORed in (Talk's behaviour).
      const u = await call(p, 'PUT', `${V4}/call/${token}`, { as: member, body: { flags: 1 } });
      assert.equal(u.status, 200, u.text);
      assert.equal((await record(member, token)).participantFlags, 1);
      assert.equal((await record(member, token)).callFlag, 7);

      // The owner leaves: the call runs on. The member leaves: it ends.
      assert.equal((await leave(owner, token)).status, 200);
      r = await record(owner, token);
      assert.deepEqual([r.hasCall, r.participantFlags], [true, 0]);
      assert.equal((await leave(member, token)).status, 200);
      r = await record(owner, token);
      assert.deepEqual([r.hasCall, r.callStartTime, r.callFlag, r.callPermissions], [false, 0, 0, 0]);
      assert.equal((await roomRow(p, token))!.call_permissions, 0, 'call permissions reset');

      const started = events('call.started', token);
      assert.equal(started.length, 1);
      assert.deepEqual([started[0].actor.actorId, started[0].flags, started[0].silent], ['owner', 7, false]);
      assert.equal(events('call.started.trx', token).length, 1);
      assert.deepEqual(
        events('call.joined', token).map((e) => [e.actor.actorId, e.started, e.flags]),
        [
          ['owner', true, 7],
          ['member', false, 3],
        ],
      );
      assert.deepEqual(
        events('call.flags-updated', token).map((e) => [e.actor.actorId, e.flags]),
        [['member', 1]],
      );
      assert.deepEqual(
        events('call.left', token).map((e) => e.actor.actorId),
        ['owner', 'member'],
      );
      const ended = events('call.ended', token);
      assert.equal(ended.length, 1);
      assert.deepEqual([ended[0].actor.actorId, ended[0].everyone, ended[0].reason], ['member', false, 'last-left']);
      assert.equal(ended[0].callStartTime, started[0].callStartTime);
      assert.equal(events('call.ended.trx', token).length, 1);
    });

    it('silent join and the v1.php path; a join while in the call only changes the flags', async () => {
      const token = await groupRoom('Silent');
      const owner = await enter('owner', token);
      const v1 = await call(p, 'POST', `${V4}/call/${token}`, { as: owner, body: { flags: 1, silent: true, silentFor: ['member'] }, version: 1 });
      assert.equal(v1.status, 200, v1.text);
      assert.equal(v1.meta.statuscode, 100);
      const [started] = events('call.started', token);
      assert.deepEqual([started.silent, started.silentFor], [true, ['member']]);
      assert.equal((await join(owner, token, { flags: 7 })).status, 200);
      assert.equal((await record(owner, token)).participantFlags, 7);
      assert.equal(events('call.joined', token).length, 1, 'no second join event');
      assert.equal(events('call.flags-updated', token).length, 1);
      assert.equal((await leave(owner, token)).status, 200);
    });

    it('statuses: 404 without room or session, 403 calls disabled, 412 lobby, 403 read-only, 400 type and bad flags', async () => {
      const token = await groupRoom('Statuses');
      const member = await enter('member', token);
      // Not a participant / unknown / malformed token: 404 room on every endpoint.
      for (const [who, t] of [
        [as('outsider'), token],
        [as('owner'), 'zzzzzzzzzz'],
        [as('owner'), 'BAD%20TOKEN'],
      ] as const) {
        for (const m of ['GET', 'POST', 'PUT', 'DELETE']) {
          const r = await call(p, m, `${V4}/call/${t}`, { as: who, body: m === 'PUT' ? { flags: 1 } : undefined });
          assert.equal(r.status, 404, `${m} ${t}`);
          assert.equal(r.data.error, 'room');
        }
      }
      // A participant without a session: POST/PUT/DELETE 404 session; GET lists.
      for (const m of ['POST', 'PUT', 'DELETE']) {
        const r = await call(p, m, `${V4}/call/${token}`, { as: as('owner'), body: m === 'PUT' ? { flags: 1 } : undefined });
        assert.equal(r.status, 404, m);
        assert.equal(r.data.error, 'session');
      }
      const list = await call(p, 'GET', `${V4}/call/${token}`, { as: as('owner') });
      assert.deepEqual([list.status, list.data], [200, []], 'nobody is in the call');

      // Bad flags: 400 `flags`, nothing changes.
      for (const flags of [0, 2, 16, -1, 'x', 1.5, 99999999999]) {
        const r = await join(member, token, { flags });
        assert.equal(r.status, 400, `flags ${flags}: ${r.text}`);
        assert.equal(r.data.error, 'flags');
      }
      for (const body of [{ silent: 'loud' }, { recordingConsent: 'maybe' }, { silentFor: 'x' }, { silentFor: ['x'.repeat(256)] }]) {
        const r = await join(member, token, body);
        assert.deepEqual([r.status, r.data?.error], [400, Object.keys(body)[0]], `${JSON.stringify(body).slice(0, 40)}: ${r.text}`);
      }
      assert.equal((await record(member, token)).hasCall, false);
      // PUT when not in the call: 400; PUT bad flags: 400.
      const notIn = await call(p, 'PUT', `${V4}/call/${token}`, { as: member, body: { flags: 3 } });
      assert.deepEqual([notIn.status, notIn.data.error], [400, 'in-call']);
      for (const body of [{}, { flags: 'x' }, { flags: 1.5 }]) {
        const r = await call(p, 'PUT', `${V4}/call/${token}`, { as: member, body });
        assert.deepEqual([r.status, r.data?.error], [400, 'flags'], `${JSON.stringify(body)}: ${r.text}`);
      }
      // DELETE when not in the call: 200, nothing happens.
      assert.equal((await leave(member, token)).status, 200);
      const badAll = await call(p, 'DELETE', `${V4}/call/${token}`, { as: member, body: { all: 'maybe' } });
      assert.deepEqual([badAll.status, badAll.data.error], [400, 'all'], badAll.text);
      const badRing = await call(p, 'POST', `${V4}/call/${token}/ring/1e20`, { as: member });
      assert.deepEqual([badRing.status, badRing.data.error], [400, 'attendeeId'], badRing.text);

      // Calls disabled: 403 on list, join and ring; canStartCall false.
      await config('start_calls', '3');
      try {
        for (const [m, path] of [
          ['GET', ''],
          ['POST', ''],
          ['POST', '/ring/1'],
        ] as const) {
          const r = await call(p, m, `${V4}/call/${token}${path}`, { as: member });
          assert.equal(r.status, 403, `${m} ${path}`);
          assert.equal(r.data.error, 'call');
        }
        assert.equal((await record(member, token)).canStartCall, false);
      } finally {
        await config('start_calls', '0');
      }

      // Lobby: 412 for a member, a moderator may join.
      await setRoom(p, token, { lobby_state: 1 });
      for (const m of ['GET', 'POST']) {
        const r = await call(p, m, `${V4}/call/${token}`, { as: member });
        assert.deepEqual([r.status, r.data.error], [412, 'lobby'], m);
      }
      await setRoom(p, token, { lobby_state: 0 });
      // Read-only: 403.
      await setRoom(p, token, { read_only: 1 });
      const ro = await join(member, token);
      assert.deepEqual([ro.status, ro.data.error], [403, 'readOnly']);
      await setRoom(p, token, { read_only: 0 });
      // Former one-to-one: read-only in Talk, so no calls (403 readOnly).
      await setRoom(p, token, { type: RoomType.ONE_TO_ONE_FORMER });
      const ty = await join(member, token);
      assert.deepEqual([ty.status, ty.data.error], [403, 'readOnly']);
      await setRoom(p, token, { type: RoomType.GROUP });
      assert.equal((await record(member, token)).hasCall, false, 'nothing started');
    });

    it('canStartCall and start permission: start_calls, start_calls_groups, permissions; joining a running call is always possible', async () => {
      const token = await groupRoom('Who starts');
      const owner = await enter('owner', token);
      const member = await enter('member', token);
      await config('start_calls', '2');
      try {
        assert.equal((await record(member, token)).canStartCall, false);
        assert.equal((await record(owner, token)).canStartCall, true);
        const refused = await join(member, token);
        assert.deepEqual([refused.status, refused.data.error], [403, 'permissions']);
        assert.equal((await record(member, token)).hasCall, false);
        assert.equal((await join(owner, token)).status, 200);
        assert.equal((await join(member, token)).status, 200, 'a running call can be joined');
        assert.equal((await leave(owner, token)).status, 200);
        assert.equal((await leave(member, token)).status, 200);
      } finally {
        await config('start_calls', '0');
      }
      await p.services.directory.createGroup('callers');
      await createUser(p, 'caller', { groups: ['callers'] });
      await seedUser(p, token, 'caller');
      const caller = await enter('caller', token);
      await config('start_calls_groups', '["callers"]');
      try {
        assert.equal((await record(owner, token)).canStartCall, false, 'moderators too need the group');
        assert.equal((await join(owner, token)).status, 403);
        assert.equal((await record(caller, token)).canStartCall, true, 'a member of the group may');
        assert.equal((await join(caller, token)).status, 200);
        assert.equal((await leave(caller, token)).status, 200);
      } finally {
        await config('start_calls_groups', '[]');
      }
      // Attendee permissions without "start call" (2): canStartCall false, 403.
      const attendee = (await record(member, token)).attendeeId;
      const set = await call(p, 'PUT', `${V4}/room/${token}/attendees/permissions`, {
        as: owner,
        body: { attendeeId: attendee, method: 'set', permissions: 4 + 16 },
      });
      assert.equal(set.status, 200, set.text);
      assert.equal((await record(member, token)).canStartCall, false);
      assert.equal((await join(member, token)).status, 403);
      // Publishing bits are masked: no video permission → the video flag is dropped.
      assert.equal((await join(owner, token, { flags: 1 })).status, 200);
      assert.equal((await join(member, token, { flags: 7 })).status, 200);
      assert.equal((await record(member, token)).participantFlags, 3);
      await leave(owner, token);
      await leave(member, token);
    });

    it('recording consent: 400 consent when required, 200 with consent', async () => {
      const token = await groupRoom('Consent');
      const member = await enter('member', token);
      // Recording needs the external signaling mode, which a listed signaling server turns on
      // (a closed loopback port: notifications to it fail quietly in the background).
      for (const [k, v] of [
        ['signaling_servers', '{"servers":[{"server":"http://127.0.0.1:9","verify":true}],"secret":"x"}'],
        ['call_recording', 'yes'],
        ['recording_servers', '{"servers":[{"server":"https://rec.example","verify":true}],"secret":"s3cret"}'],
        ['recording_consent', '1'],
      ])
        await config(k, v);
      try {
        const no = await join(member, token);
        assert.deepEqual([no.status, no.data.error], [400, 'consent']);
        assert.equal((await record(member, token)).hasCall, false);
        assert.equal((await join(member, token, { recordingConsent: true })).status, 200);
        await leave(member, token);
        // The consent is stored (Talk's talk_consent): actor and time.
        const consents = async () => {
          const id = (await roomRow(p, token))!.id;
          return p.services.db.kysely.selectFrom('recording_consents').select(['actor_type', 'actor_id', 'created_at']).where('room_id', '=', id).execute();
        };
        const stored = await consents();
        assert.deepEqual(
          stored.map((c) => [c.actor_type, c.actor_id]),
          [['users', 'member']],
        );
        assert.ok(Math.abs(Number(stored[0].created_at) - now()) < 60);
        // 2: the conversation decides.
        await config('recording_consent', '2');
        assert.equal((await join(member, token)).status, 200);
        await leave(member, token);
        await setRoom(p, token, { recording_consent: 1 });
        assert.equal((await join(member, token)).status, 400);
      } finally {
        for (const k of ['signaling_servers', 'call_recording', 'recording_servers', 'recording_consent']) await p.services.appConfig.delete(k);
      }
      // Without usable recording, consent is never required (nor stored).
      assert.equal((await join(member, token, { recordingConsent: true })).status, 200);
      const id = (await roomRow(p, token))!.id;
      const after = await p.services.db.kysely.selectFrom('recording_consents').select('id').where('room_id', '=', id).execute();
      assert.equal(after.length, 1, 'only the join that needed consent');
      // Deleting the conversation deletes its consents.
      await leave(member, token);
      assert.equal((await call(p, 'DELETE', `${V4}/room/${token}`, { as: as('owner') })).status, 200);
      assert.equal((await p.services.db.kysely.selectFrom('recording_consents').select('id').where('room_id', '=', id).execute()).length, 0);
    });

    it('DELETE all=true: a moderator ends the call for everyone; for others it is a plain leave', async () => {
      const token = await groupRoom('End for all');
      const owner = await enter('owner', token);
      const member = await enter('member', token);
      const other = await enter('other', token);
      for (const who of [owner, member, other]) assert.equal((await join(who, token)).status, 200);
      assert.equal((await leave(member, token, { all: 'true' })).status, 200);
      let r = await record(owner, token);
      assert.equal(r.hasCall, true, 'a non-moderator only leaves');
      assert.equal((await record(member, token)).participantFlags, 0);
      assert.equal((await leave(owner, token, { all: 'true' })).status, 200);
      r = await record(owner, token);
      assert.deepEqual([r.hasCall, r.callFlag], [false, 0]);
      assert.equal((await record(other, token)).participantFlags, 0, 'everyone is out of the call');
      const ended = events('call.ended', token);
      assert.deepEqual(
        ended.map((e) => [e.actor.actorId, e.everyone, e.reason]),
        [['owner', true, 'moderator']],
      );
      assert.deepEqual(
        events('call.left', token).map((e) => e.actor.actorId),
        ['member'],
        'no individual leaves for an end for everyone',
      );
    });

    it('making the conversation read-only takes everyone out of the call, which ends', async () => {
      const token = await groupRoom('Read-only ends');
      const owner = await enter('owner', token);
      const member = await enter('member', token);
      for (const who of [owner, member]) assert.equal((await join(who, token)).status, 200);
      const ro = await call(p, 'PUT', `${V4}/room/${token}/read-only`, { as: owner, body: { state: 1 } });
      assert.equal(ro.status, 200, ro.text);
      assert.deepEqual([ro.data.hasCall, ro.data.callFlag, ro.data.participantFlags], [false, 0, 0]);
      assert.deepEqual(
        events('call.ended', token).map((e) => [e.reason, e.everyone]),
        [['disconnected', true]],
      );
    });

    it('ring: 400 without a call or when not in it, 404 unknown attendee, 400 actor-type and status, 403 without permission, 200', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.PUBLIC, roomName: 'Ring' });
      const token = room.token as string;
      const target = await seedUser(p, token, 'member');
      const owner = await enter('owner', token);
      const ring = (who: Caller, id: number | string) => call(p, 'POST', `${V4}/call/${token}/ring/${id}`, { as: who });
      assert.deepEqual([(await ring(owner, target.id)).status, (await ring(owner, target.id)).data.error], [400, 'in-call']);
      const other = await enter('other', token);
      assert.equal((await join(other, token)).status, 200);
      const notIn = await ring(owner, target.id);
      assert.deepEqual([notIn.status, notIn.data.error], [400, 'in-call'], 'the requester is not in the call');
      assert.equal((await join(owner, token)).status, 200);
      assert.equal((await ring(owner, 999999)).status, 404);
      assert.equal((await ring(owner, 'abc')).status, 400);
      const guest = await joinGuest(p, token);
      const g = await ring(owner, guest.attendeeId);
      assert.deepEqual([g.status, g.data.error], [400, 'actor-type']);
      const dnd = await call(p, 'PUT', '/apps/user_status/api/v1/user_status/status', { as: as('member'), body: { statusType: 'dnd' } });
      assert.equal(dnd.status, 200, dnd.text);
      const st = await ring(owner, target.id);
      assert.deepEqual([st.status, st.data.error], [400, 'status']);
      await call(p, 'PUT', '/apps/user_status/api/v1/user_status/status', { as: as('member'), body: { statusType: 'online' } });
      const ok = await ring(owner, target.id);
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual(
        events('call.ring', token).map((e) => [e.actor.actorId, e.target.actorId]),
        [['owner', 'member']],
      );
      // A guest (type 4) in the call lacks "start call" under start_calls=1: 403.
      await config('start_calls', '1');
      try {
        const gj = await call(p, 'POST', `${V4}/call/${token}`, { as: guest.caller });
        assert.equal(gj.status, 200, 'guests join a running call');
        const gr = await call(p, 'POST', `${V4}/call/${token}/ring/${target.id}`, { as: guest.caller });
        assert.equal(gr.status, 200, 'the permission bit, not start_calls, gates ringing');
        await setRoom(p, token, { default_permissions: 1 + 4 });
        const denied = await call(p, 'POST', `${V4}/call/${token}/ring/${target.id}`, { as: guest.caller });
        assert.deepEqual([denied.status, denied.data.error], [403, 'permissions']);
        assert.equal((await leave(owner, token, { all: 'true' })).status, 200);
      } finally {
        await config('start_calls', '0');
      }
    });

    it('409 join rule, in-call branch: a session in a call conflicts for 60 s without a ping, one not in a call only for 40 s', async () => {
      const token = await groupRoom('Conflict');
      const owner = await enter('owner', token);
      assert.equal((await join(owner, token)).status, 200);
      const { sessionId } = await record(owner, token);
      const age = (s: number) =>
        p.services.db.kysely
          .updateTable('sessions')
          .set({ last_ping: now() - s })
          .where('session_id', '=', sessionId)
          .execute();
      await age(45);
      const c = await call(p, 'POST', `${V4}/room/${token}/participants/active`, { as: owner, body: { force: false } });
      assert.equal(c.status, 409, c.text);
      assert.deepEqual([c.data.sessionId, c.data.inCall], [sessionId, 7]);
      // Not in the call (left through the API), the same age is replaced without asking.
      await age(0);
      assert.equal((await leave(owner, token)).status, 200);
      await age(45);
      const ok = await call(p, 'POST', `${V4}/room/${token}/participants/active`, { as: owner, body: { force: false } });
      assert.equal(ok.status, 200, ok.text);
    });

    it('a forced join replaces an in-call session: that session leaves the call, which ends', async () => {
      const token = await groupRoom('Replaced');
      const owner = await enter('owner', token);
      assert.equal((await join(owner, token)).status, 200);
      const again = await call(p, 'POST', `${V4}/room/${token}/participants/active`, { as: owner, body: { force: true } });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.data.participantFlags, 0);
      assert.equal(again.data.hasCall, false, 'the replaced session was the only one in the call');
      assert.deepEqual(
        events('call.left', token).map((e) => e.actor.actorId),
        ['owner'],
      );
      assert.equal(events('call.ended', token).length, 1);
    });

    it('sessions that leave the conversation or go stale end the call; max_call_duration ends it for everyone', async () => {
      const run = async (name: string) => {
        const job = jobs.find((j) => j.name === name)!;
        const out = await runJobIfDue(p.services, job, true);
        assert.equal(out.status, 'ok', out.error);
        return out.summary!;
      };
      // Leaving the conversation while in the call.
      const a = await groupRoom('Leave room');
      const owner = await enter('owner', a);
      assert.equal((await join(owner, a)).status, 200);
      assert.equal((await call(p, 'DELETE', `${V4}/room/${a}/participants/active`, { as: owner })).status, 200);
      assert.equal((await roomRow(p, a))!.active_since, null);
      assert.deepEqual(
        events('call.left', a).map((e) => e.actor.actorId),
        ['owner'],
        'leaving the conversation leaves the call',
      );
      assert.deepEqual(
        events('call.ended', a).map((e) => e.reason),
        ['last-left'],
      );

      // A stale in-call session (no ping for 100 s) is cleaned up and the call ends.
      const b = await groupRoom('Stale');
      const member = await enter('member', b);
      assert.equal((await join(member, b)).status, 200);
      await setRoom(p, b, { call_permissions: 5 });
      await p.services.db.kysely
        .updateTable('sessions')
        .set({ last_ping: now() - 120 })
        .where('session_id', '=', (await record(member, b)).sessionId)
        .execute();
      await run('stale-sessions');
      const rb = (await roomRow(p, b))!;
      assert.deepEqual([rb.active_since, rb.call_flag, rb.call_permissions], [null, 0, 0]);
      assert.deepEqual(
        events('call.ended', b).map((e) => [e.reason, e.everyone, e.actor]),
        [['stale', false, null]],
      );

      // max_call_duration: a real call older than the limit ends for everyone.
      const c = await groupRoom('Too long');
      const o = await enter('owner', c);
      const m = await enter('member', c);
      assert.equal((await join(o, c)).status, 200);
      assert.equal((await join(m, c)).status, 200);
      await config('max_call_duration', '1');
      try {
        await new Promise((r) => setTimeout(r, 1100));
        assert.match(await run('call-duration'), /^[1-9]\d* past the maximum/);
      } finally {
        await config('max_call_duration', '0');
      }
      const rc = (await roomRow(p, c))!;
      assert.deepEqual([rc.active_since, rc.call_flag], [null, 0]);
      assert.equal((await record(m, c)).participantFlags, 0);
      assert.deepEqual(
        events('call.ended', c).map((e) => [e.reason, e.everyone]),
        [['max-duration', true]],
      );
      assert.ok(events('call.ended', c)[0].duration >= 1);
    });

    it('capabilities: the call features that work, config.call from app config', async () => {
      const caps = async () => (await call(p, 'GET', '/cloud/capabilities', { as: as('member') })).data.capabilities.spreed;
      let s = await caps();
      for (const f of [
        'audio',
        'video',
        'in-call-flags',
        'conversation-call-flags',
        'start-call-flag',
        'silent-call',
        'recording-consent',
        'send-call-notification',
      ])
        assert.ok(s.features.includes(f), f);
      // Not built here: recording, the participants download.
      for (const f of ['recording-v1', 'download-call-participants', 'call-notification-state-api']) assert.ok(!s.features.includes(f), f);
      assert.deepEqual([s.config.call.enabled, s.config.call['max-duration'], s.config.call['recording-consent']], [true, 0, 0]);
      await config('start_calls', '3');
      await config('max_call_duration', '3600');
      try {
        s = await caps();
        assert.deepEqual([s.config.call.enabled, s.config.call['max-duration']], [false, 3600]);
      } finally {
        await config('start_calls', '0');
        await config('max_call_duration', '0');
      }
    });

    it('joining and leaving a call cost a constant number of queries (2 vs 50 in the conversation)', async () => {
      const cost = async (members: number) => {
        const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: `Cost ${members}` });
        const token = room.token as string;
        const callers: Caller[] = [];
        for (let i = 0; i < members; i++) {
          const id = `cost${members}x${i}`;
          await createUser(p, id);
          await seedUser(p, token, id);
          callers.push(await enter(id, token));
        }
        for (const c of callers.slice(1)) assert.equal((await join(c, token)).status, 200);
        const owner = await enter('owner', token);
        // The signaling notifier works in the background after the answer: wait for it so its
        // reads are counted every time, not only when they happen to run before the answer.
        await p.services.signalingNotifier.idle();
        const settled = async (r: Promise<{ status: number }>) => {
          assert.equal((await r).status, 200);
          await p.services.signalingNotifier.idle();
        };
        const joinCost = await countQueries(p, () => settled(join(owner, token)));
        const leaveCost = await countQueries(p, () => settled(leave(owner, token)));
        return [joinCost, leaveCost];
      };
      const small = await cost(2);
      // A call of 50: 49 others in it besides the one measured.
      const big = await cost(50);
      assert.deepEqual(big, small, `join/leave queries: ${small} vs ${big}`);
      assert.ok(small[0] <= 20 && small[1] <= 20, `small budgets: ${small}`);
    });
  });
}
