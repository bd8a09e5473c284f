/**
 * Two real Parley processes sharing one PostgreSQL schema, both with JOBS=true and every job
 * interval scaled down to one second (JOB_INTERVAL_SCALE): each scheduled slot runs once (the
 * history holds one row per job and second, matching job_runs.runs), and each job's effect is
 * there. PostgreSQL only (SQLite is one process's file).
 */
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { JobRunsRepository } from '../src/db/repositories/job-runs.js';
import { ParticipantsRepository } from '../src/db/repositories/participants.js';
import { jobs } from '../src/jobs/index.js';
import { createUser, startParley, type Parley } from './helpers/parley.js';
import { createRoom, roomRow, setRoom } from './helpers/rooms.js';
import { RoomType } from './helpers/fixtures.js';

const DAY = 86400;
const now = () => Math.floor(Date.now() / 1000);

/** `parley serve` as a real process; resolves once it listens. */
function serve(env: Record<string, string>): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('src/main.ts'), 'serve'], {
      env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', JOBS: 'true', JOB_INTERVAL_SCALE: '0.00001', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`parley did not start: ${out}`)), 30_000);
    // The listening line for a person is on stderr (stdout is the JSON log, silent here).
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => {
      out += c;
      if (out.includes('Parley listening')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on('exit', (code) => reject(new Error(`parley exited (${code}): ${out}`)));
  });
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

describe('jobs in two processes over one PostgreSQL', { skip: !process.env.PARLEY_TEST_PG && 'PARLEY_TEST_PG is not set' }, () => {
  let p: Parley;
  const children: ChildProcess[] = [];
  before(async () => {
    // Migrates the schema and seeds the rows; its own scheduler stays off (JOBS=false).
    p = await startParley('postgres');
    await createUser(p, 'alice');
  });
  after(async () => {
    await Promise.all(children.map(stop));
    await p.close();
  });

  it('every slot runs once, across both processes, and every job does its work', async () => {
    const t = now();
    const room = async (name: string, patch: Record<string, unknown>) => {
      const r = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: name });
      if (Object.keys(patch).length) await setRoom(p, r.token, patch);
      return r.token as string;
    };
    await p.services.appConfig.set('inactivity_lock_after_days', '1');
    await p.services.appConfig.set('max_call_duration', '60');
    const expired = await room('expired phone', { object_type: 'phone_temporary', object_id: 'x', last_activity: t - 30 * DAY });
    const idle = await room('idle', { last_activity: t - 3 * DAY });
    const lobby = await room('lobby', { lobby_state: 1, lobby_timer: t - 5 });
    const call = await room('long call', { active_since: t - 3600, call_flag: 1, call_permissions: 9 });
    const empty = await room('empty', {});
    await p.services.repos.attendees.deleteForRooms([(await roomRow(p, empty))!.id]);
    const members = new ParticipantsRepository(p.services.db.kysely);
    const attendee = (await p.services.repos.attendees.find((await roomRow(p, idle))!.id, 'users', 'alice'))!;
    const stale = (await members.insertSession(attendee.id, 's'.repeat(512), t - 1000))!;

    const started = now();
    children.push(await serve(p.env), await serve(p.env));
    await sleep(5000);
    await Promise.all(children.map(stop));
    const ended = now();

    const repo = new JobRunsRepository(p.services.db.kysely);
    const states = await repo.all();
    const history = await repo.history();
    const owners = new Set<string>();
    for (const job of jobs) {
      const state = states.find((s) => s.name === job.name);
      assert.ok(state, `${job.name} ran`);
      const rows = history.filter((h) => h.name === job.name);
      rows.forEach((r) => owners.add(r.owner));
      const slots = rows.map((r) => r.started_at);
      assert.equal(new Set(slots).size, slots.length, `${job.name}: a slot ran twice (${slots.join(',')})`);
      assert.equal(rows.length, state.runs, `${job.name}: history and run count agree`);
      // One run per one-second slot at most.
      assert.ok(state.runs >= 1 && state.runs <= ended - started + 1, `${job.name}: ${state.runs} runs in ${ended - started} s`);
      assert.ok(
        rows.every((r) => r.status === 'ok'),
        `${job.name}: ${rows.map((r) => r.summary).join('; ')}`,
      );
    }
    assert.ok(owners.size >= 1 && ![...owners].some((o) => o.startsWith(`${process.pid}-`)), 'the spawned processes ran the jobs');

    // Each job's effect.
    assert.equal(await roomRow(p, expired), undefined, 'retention');
    assert.equal((await roomRow(p, idle))!.read_only, 1, 'inactivity lock');
    assert.equal((await roomRow(p, lobby))!.lobby_state, 0, 'lobby timer');
    const c = (await roomRow(p, call))!;
    assert.deepEqual([c.active_since, c.call_flag, c.call_permissions], [null, 0, 0], 'call duration');
    assert.equal(await roomRow(p, empty), undefined, 'empty rooms');
    const s = await p.services.db.kysely.selectFrom('sessions').select('id').where('id', '=', stale.id).executeTakeFirst();
    assert.equal(s, undefined, 'stale sessions');
  });
});
