/**
 * `parley talk:active-calls` and `talk:monitor:calls` against the database of a running Parley
 * whose calls are started through the call API. One real process checks Talk's exit code 1
 * while calls run.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects, type Caller } from './helpers/parley.js';
import { expectRefusal, runCli, spawnCli } from './helpers/cli.js';
import { cookieOf, createRoom, seedUser, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`talk:active-calls and talk:monitor:calls [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob', 'carol'] });

    const parley = async (...args: string[]) => {
      const r = await runCli(t.p.env, args);
      // talk:active-calls sets Talk's exit code 1 while calls run; keep it off this test process.
      const code = process.exitCode;
      process.exitCode = undefined;
      return { ...r, exitCode: code };
    };
    async function enterCall(user: string, token: string): Promise<Caller> {
      const j = await t.call('POST', `${V4}/room/${token}/participants/active`, { as: as(user) });
      const who = { ...as(user), headers: { Cookie: cookieOf(j) } };
      const c = await t.call('POST', `${V4}/call/${token}`, { as: who });
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
      const one = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'One' });
      const two = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Two' });
      await seedUser(t.p, one.token, 'bob');
      await seedUser(t.p, two.token, 'carol');
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

      const bin = await spawnCli(t.p.env, ['talk:active-calls', '--output=json']);
      assert.equal(bin.code, 1, bin.stderr);
      assert.deepEqual(JSON.parse(bin.stdout), { calls: 2, participants: 3 });

      assert.equal((await t.call('DELETE', `${V4}/call/${one.token}`, { as: alice, query: { all: 'true' } })).status, 200);
      assert.deepEqual(JSON.parse((await parley('talk:monitor:calls', '--output=json')).stdout), { [two.token]: 1 });
      assert.equal((await t.call('DELETE', `${V4}/call/${two.token}`, { as: carol })).status, 200);
      assert.equal((await parley('talk:active-calls')).stdout, 'No calls in progress\n');
    });
  });
}
