/**
 * The jobs that keep conversations tidy (docs/reference/participants.md#sessions-and-calls, docs/reference/conversations.md#timers-and-jobs): each run
 * against real rows; the time-dependent ones (classified retention in seconds, lobby timers,
 * max_call_duration) on the real clock with short windows. jobs:list and jobs:run too.
 */
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { ParticipantsRepository } from '../src/db/repositories/participants.js';
import { jobs, runJobIfDue } from '../src/jobs/index.js';
import { as, dialects } from './helpers/parley.js';
import { createRoom, roomRow, seedAttendee, setRoom, V4 } from './helpers/rooms.js';
import { runCli } from './helpers/cli.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

const DAY = 86400;
const now = () => Math.floor(Date.now() / 1000);

for (const dialect of dialects()) {
  describe(`housekeeping jobs [${dialect}]`, () => {
    const fx = useParley(dialect, { users: ['alice', 'bob'] });

    const run = async (name: string) => {
      const job = jobs.find((j) => j.name === name);
      assert.ok(job, `job ${name} is registered`);
      const out = await runJobIfDue(fx.p.services, job, true);
      assert.equal(out.status, 'ok', out.error);
      return out.summary!;
    };
    const room = async (name: string, patch: Record<string, unknown> = {}) => {
      const r = await createRoom(fx.p, 'alice', { roomType: RoomType.GROUP, roomName: name });
      if (Object.keys(patch).length) await setRoom(fx.p, r.token, patch);
      return r.token as string;
    };
    const exists = async (token: string) => (await roomRow(fx.p, token)) !== undefined;
    const config = (key: string, value: string) => fx.p.services.appConfig.set(key, value);

    it('retention: phone, event and instant-meeting rooms past their days go; 0 disables a kind', async () => {
      const t = now();
      const oldPhone = await room('old phone', { object_type: 'phone_temporary', object_id: 'x', last_activity: t - 8 * DAY });
      const newPhone = await room('new phone', { object_type: 'phone_temporary', object_id: 'x', last_activity: t - 6 * DAY });
      const persist = await room('persisted phone', { object_type: 'phone_persist', object_id: 'x', last_activity: t - 80 * DAY });
      const pastEvent = await room('past event', { object_type: 'event', object_id: `${t - 40 * DAY}#${t - 30 * DAY}`, last_activity: t - 30 * DAY });
      const futureEvent = await room('future event', { object_type: 'event', object_id: `${t - 40 * DAY}#${t + DAY}`, last_activity: t - 30 * DAY });
      const meeting = await room('meeting', { object_type: 'instant_meeting', object_id: 'x', last_activity: t - 2 * DAY });
      const plain = await room('plain', { last_activity: t - 400 * DAY });

      await config('retention_instant_meetings', '0');
      assert.match(await run('retention'), /1 phone_temporary/);
      assert.deepEqual(await Promise.all([oldPhone, newPhone, persist, pastEvent, futureEvent, meeting, plain].map(exists)), [
        false,
        true,
        true,
        false,
        true,
        true,
        true,
      ]);
      await config('retention_instant_meetings', '1');
      await run('retention');
      assert.equal(await exists(meeting), false);
      assert.equal(await exists(plain), true);
      // Idempotent: nothing more to do.
      assert.match(await run('retention'), /0 phone_temporary, 0 event, 0 instant_meeting/);
      // The retention values clients show are in the capabilities.
      await config('retention_phone_rooms', '9');
      const caps = await fx.call('GET', '/cloud/capabilities', { as: as('alice') });
      const conv = caps.data.capabilities.spreed.config.conversations;
      assert.deepEqual([conv['retention-event'], conv['retention-phone'], conv['retention-instant-meetings']], [28, 9, 1]);
      await config('retention_phone_rooms', '7');
    });

    it('retention of classified rooms counts seconds on the real clock', async () => {
      // 3 s, not 1: a room idle for exactly the retention goes (<=), so with 1 s a run that
      // happened to fall into the next second would already delete it.
      await config('retention_classified_rooms', '3');
      const classified = await room('classified', { object_type: 'classified', object_id: 'x', last_activity: now() });
      await run('retention');
      assert.equal(await exists(classified), true, 'still inside its retention');
      await sleep(3100);
      await run('retention');
      assert.equal(await exists(classified), false);
      await config('retention_classified_rooms', '3600');
    });

    it('inactivity lock: idle group and public rooms become read-only (and lobbied on request)', async () => {
      const t = now();
      const idle = await room('idle', { last_activity: t - 3 * DAY });
      const busy = await room('busy', { last_activity: t });
      const one = (await createRoom(fx.p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' })).token;
      await setRoom(fx.p, one, { last_activity: t - 30 * DAY });
      assert.equal(await run('inactivity-lock'), '0 locked', 'off while inactivity_lock_after_days is 0');
      assert.equal((await roomRow(fx.p, idle))!.read_only, 0);

      await config('inactivity_lock_after_days', '2');
      await config('inactivity_enable_lobby', 'yes');
      // Older rooms of the other cases are locked too: count them by reading back.
      assert.match(await run('inactivity-lock'), /^[1-9]\d* locked$/);
      const locked = (await roomRow(fx.p, idle))!;
      assert.equal(locked.read_only, 1);
      // Talk's LockInactiveRooms puts the lobby on with its timer at "now": it lifts itself once
      // that second has passed, at the next read (lobby_timer_reached), and the room stays read-only.
      assert.equal(locked.lobby_state, 1);
      assert.ok(locked.lobby_timer >= t && locked.lobby_timer <= now(), `timer ${locked.lobby_timer} is the run's now`);
      await sleep(1100);
      const rec = await fx.call('GET', `${V4}/room/${idle}`, { as: as('alice') });
      assert.deepEqual([rec.data.readOnly, rec.data.lobbyState, rec.data.lobbyTimer], [1, 0, 0]);
      assert.equal(rec.data.lastMessage.systemMessage, 'lobby_timer_reached');
      assert.equal((await roomRow(fx.p, busy))!.read_only, 0);
      assert.equal((await roomRow(fx.p, one))!.read_only, 0);
      assert.equal(await run('inactivity-lock'), '0 locked');
      await config('inactivity_lock_after_days', '0');
    });

    it('lobby timer: a passed timer is lifted although nobody reads the room', async () => {
      const t = now();
      const soon = await room('soon', { lobby_state: 1, lobby_timer: t + 1 });
      const later = await room('later', { lobby_state: 1, lobby_timer: t + 3600 });
      const forever = await room('forever', { lobby_state: 1, lobby_timer: 0 });
      await run('lobby-timer');
      assert.equal((await roomRow(fx.p, soon))!.lobby_state, 1);
      await sleep(2100);
      assert.equal(await run('lobby-timer'), '1 lobbies lifted');
      const row = (await roomRow(fx.p, soon))!;
      assert.deepEqual([row.lobby_state, row.lobby_timer], [0, 0]);
      assert.equal((await roomRow(fx.p, later))!.lobby_state, 1);
      assert.equal((await roomRow(fx.p, forever))!.lobby_state, 1);
    });

    it('empty rooms: no attendee besides groups and teams means deleted; the changelog stays', async () => {
      const withGroupOnly = await room('group only');
      await fx.p.services.repos.attendees.deleteForRooms([(await roomRow(fx.p, withGroupOnly))!.id]);
      await seedAttendee(fx.p, withGroupOnly, { actorType: 'groups', actorId: 'staff', participantType: ParticipantType.USER });
      const changelog = await room('changelog', { type: RoomType.CHANGELOG });
      await fx.p.services.repos.attendees.deleteForRooms([(await roomRow(fx.p, changelog))!.id]);
      const occupied = await room('occupied');
      assert.match(await run('empty-rooms'), /^[1-9]\d* deleted$/);
      assert.equal(await exists(withGroupOnly), false);
      assert.equal(await exists(changelog), true);
      assert.equal(await exists(occupied), true);
      assert.equal(await run('empty-rooms'), '0 deleted');
    });

    it('calls: past max_call_duration they end for everyone; abandoned ones end; call permissions reset', async () => {
      const repo = new ParticipantsRepository(fx.p.services.db.kysely);
      const t = now();
      const live = await room('live call', { active_since: t, call_flag: 7, call_permissions: 5 });
      const liveAttendee = (await fx.p.services.repos.attendees.find((await roomRow(fx.p, live))!.id, 'users', 'alice'))!;
      const session = (await repo.insertSession(liveAttendee.id, 'a'.repeat(512), t))!;
      await fx.p.services.db.kysely.updateTable('sessions').set({ in_call: 7 }).where('id', '=', session.id).execute();
      const abandoned = await room('abandoned call', { active_since: t - 600, call_flag: 1, call_permissions: 3 });

      assert.equal(await run('call-duration'), '0 past the maximum, 1 abandoned');
      let a = (await roomRow(fx.p, abandoned))!;
      assert.deepEqual([a.active_since, a.call_flag, a.call_permissions], [null, 0, 0]);
      assert.equal((await roomRow(fx.p, live))!.call_permissions, 5, 'a call with someone in it runs on');

      await config('max_call_duration', '3');
      assert.equal(await run('call-duration'), '0 past the maximum, 0 abandoned');
      await sleep(3300);
      await repo.pingSessions([session.id], now());
      assert.match(await run('call-duration'), /^1 past the maximum/);
      a = (await roomRow(fx.p, live))!;
      assert.deepEqual([a.active_since, a.call_flag, a.call_permissions], [null, 0, 0]);
      const s = await fx.p.services.db.kysely.selectFrom('sessions').selectAll().where('id', '=', session.id).executeTakeFirst();
      assert.equal(s?.in_call, 0, 'everyone left the call');
      await config('max_call_duration', '0');
    });

    it('parley jobs:list shows every job with its runs; jobs:run runs one now', async () => {
      const list = await runCli(fx.p.env, ['jobs:list', '--output', 'json']);
      assert.equal(list.code, 0, list.stderr);
      const rows = JSON.parse(list.stdout);
      for (const name of ['retention', 'inactivity-lock', 'lobby-timer', 'empty-rooms', 'call-duration', 'stale-sessions']) {
        const r = rows.find((x: any) => x.name === name);
        assert.ok(r, `${name} is listed`);
        assert.ok(r.interval > 0);
      }
      assert.ok(rows.find((x: any) => x.name === 'lobby-timer').runs >= 2);
      const ran = await runCli(fx.p.env, ['jobs:run', 'empty-rooms']);
      assert.equal(ran.code, 0, ran.stderr);
      assert.match(ran.stdout, /job empty-rooms ran: 0 deleted/);
      const bad = await runCli(fx.p.env, ['jobs:run', 'nope']);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /unknown job "nope"/);
    });
  });
}
