/** `parley team:*` (docs/api.md "Participants and sessions"): the teams directory behind source=circles. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectRefusal, runCli } from './helpers/cli.js';
import { dialects, type Parley } from './helpers/parley.js';
import { useParley } from './helpers/fixtures.js';

/** `parley ...args` against this server's database (as the real binary, in this process). */
const parley = (p: Parley, ...args: string[]) => runCli({ ...p.env, LOG_LEVEL: 'silent' }, args);

for (const dialect of dialects()) {
  describe(`team CLI [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob'] });

    it('add, adduser, list, removeuser, delete', async () => {
      assert.equal((await parley(t.p, 'team:add', 'designers', '--display-name', 'Design team')).code, 0);
      assert.equal((await parley(t.p, 'team:adduser', 'designers', 'alice')).code, 0);
      assert.equal((await parley(t.p, 'team:adduser', 'designers', 'bob')).code, 0);
      const list = await parley(t.p, 'team:list', '--output', 'json');
      assert.equal(list.code, 0);
      assert.deepEqual(JSON.parse(list.stdout), [{ id: 'designers', displayName: 'Design team', members: 2 }]);
      assert.deepEqual(await t.p.services.teams.membersOf('designers'), ['alice', 'bob']);
      assert.equal((await parley(t.p, 'team:removeuser', 'designers', 'bob')).code, 0);
      assert.deepEqual(await t.p.services.teams.membersOf('designers'), ['alice']);
      assert.equal((await parley(t.p, 'team:delete', 'designers')).code, 0);
      assert.equal(await t.p.services.teams.find('designers'), undefined);
    });

    it('refuses bad input cleanly and changes nothing', async () => {
      assert.equal((await parley(t.p, 'team:add', 'ops')).code, 0);
      for (const args of [
        ['team:add', 'ops'],
        ['team:add', ' '],
        ['team:adduser', 'nope', 'alice'],
        ['team:adduser', 'ops', 'nobody'],
        ['team:removeuser', 'ops', 'alice'],
        ['team:delete', 'nope'],
      ]) {
        const r = await parley(t.p, ...args);
        expectRefusal(r, undefined, args.join(' '));
        assert.doesNotMatch(r.stderr, /at .*\.ts:\d+/, 'no stack trace');
      }
      assert.deepEqual(
        (await t.p.services.teams.list()).map((t) => t.id),
        ['ops'],
      );
      assert.deepEqual(await t.p.services.teams.membersOf('ops'), []);
    });

    it('a deleted user leaves every team', async () => {
      assert.equal((await parley(t.p, 'team:add', 'qa')).code, 0);
      await t.p.services.teams.addMember('ops', 'bob');
      await t.p.services.teams.addMember('qa', 'bob');
      assert.deepEqual((await t.p.services.teams.teamsOf('bob')).sort(), ['ops', 'qa'], 'bob is in both teams before');
      await t.p.services.directory.deleteUser('bob');
      assert.deepEqual(await t.p.services.teams.teamsOf('bob'), []);
    });
  });
}
