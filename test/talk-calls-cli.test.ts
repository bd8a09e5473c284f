/**
 * `parley talk:active-calls` and `talk:monitor:calls` against the database of a running Parley
 * whose calls are started through the call API. One real process checks Talk's exit code 1
 * while calls run.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, startParley, type Caller, type Parley } from './helpers/parley.js';
import { expectRefusal, runCli, spawnCli } from './helpers/cli.js';
import { cookieOf, createRoom, seedUser, V4 } from './helpers/rooms.js';
import { RoomType } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`talk:active-calls and talk:monitor:calls [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect);
      for (const u of ['alice', 'bob', 'carol']) await createUser(p, u);
    });
    after(async () => p.close());

    const parley = async (...args: string[]) => {
      const r = await runCli(p.env, args);
      // talk:active-calls sets Talk's exit code 1 while calls run; keep it off this test process.
      const code = process.exitCode;
      process.exitCode = undefined;
      return { ...r, exitCode: code };
    };
    async function enterCall(user: string, token: string): Promise<Caller> {
      const j = await call(p, 'POST', `${V4}/room/${token}/participants/active`, { as: as(user) });
      const who = { ...as(user), headers: { Cookie: cookieOf(j) } };
      const c = await call(p, 'POST', `${V4}/call/${token}`, { as: who });
      assert.equal(c.status, 200, c.text);
      return who;
    }

    it('no calls: "No calls in progress", empty lists, exit code 0', async () => {
      const a = await parley('talk:active-calls');
      assert.equal(a.code, 0, a.stderr);
      assert.equal(a.stdout, 'No calls in progress\n');
      assert.equal(a.exitCode, undefined);
      assert.deepEqual(JSON.parse((await parley('talk:active-calls', '--output=json')).stdout), { calls: 0, participants: 0 });
      const m = await parley('talk:monitor:calls');
      assert.equal(m.stdout, 'No calls in progress\n');
      assert.deepEqual(JSON.parse((await parley('talk:monitor:calls', '--output=json')).stdout), {});
      expectRefusal(await parley('talk:monitor:calls', '--output=yaml'), /--output/);
    });

    it('running calls are counted per conversation; ended calls disappear', async () => {
      const one = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'One' });
      const two = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Two' });
      await seedUser(p, one.token, 'bob');
      await seedUser(p, two.token, 'carol');
      const alice = await enterCall('alice', one.token);
      await enterCall('bob', one.token);
      const carol = await enterCall('carol', two.token);

      const a = await parley('talk:active-calls');
      assert.equal(a.stdout, 'There are currently 2 calls in progress with 3 participants\n');
      assert.equal(a.exitCode, 1, "Talk's exit code while calls run");
      const m = await parley('talk:monitor:calls', '--output=json');
      assert.deepEqual(JSON.parse(m.stdout), { [one.token]: 2, [two.token]: 1 });
      const plain = await parley('talk:monitor:calls');
      assert.match(plain.stdout, /^There are currently 2 calls in progress with 3 participants\n/);
      assert.match(plain.stdout, new RegExp(`  - "${one.token}": 2\\n`));

      const bin = await spawnCli(p.env, ['talk:active-calls', '--output=json']);
      assert.equal(bin.code, 1, bin.stderr);
      assert.deepEqual(JSON.parse(bin.stdout), { calls: 2, participants: 3 });

      assert.equal((await call(p, 'DELETE', `${V4}/call/${one.token}`, { as: alice, query: { all: 'true' } })).status, 200);
      assert.deepEqual(JSON.parse((await parley('talk:monitor:calls', '--output=json')).stdout), { [two.token]: 1 });
      assert.equal((await call(p, 'DELETE', `${V4}/call/${two.token}`, { as: carol })).status, 200);
      assert.equal((await parley('talk:active-calls')).stdout, 'No calls in progress\n');
    });
  });
}
