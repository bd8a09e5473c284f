/** `parley team:*` (issue 4 item 3): the teams directory behind source=circles. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createUser, dialects, startParley, type Parley } from './helpers/parley.js';

function parley(p: Parley, ...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, ['bin/parley.js', ...args], { env: { ...process.env, ...p.env, LOG_LEVEL: 'silent' }, encoding: 'utf8' });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

for (const dialect of dialects()) {
  describe(`team CLI [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect);
      await createUser(p, 'alice');
      await createUser(p, 'bob');
    });
    after(async () => p.close());

    it('add, adduser, list, removeuser, delete', async () => {
      assert.equal(parley(p, 'team:add', 'designers', '--display-name', 'Design team').code, 0);
      assert.equal(parley(p, 'team:adduser', 'designers', 'alice').code, 0);
      assert.equal(parley(p, 'team:adduser', 'designers', 'bob').code, 0);
      const list = parley(p, 'team:list', '--output', 'json');
      assert.equal(list.code, 0);
      assert.deepEqual(JSON.parse(list.out), [{ id: 'designers', displayName: 'Design team', members: 2 }]);
      assert.deepEqual(await p.services.teams.membersOf('designers'), ['alice', 'bob']);
      assert.equal(parley(p, 'team:removeuser', 'designers', 'bob').code, 0);
      assert.deepEqual(await p.services.teams.membersOf('designers'), ['alice']);
      assert.equal(parley(p, 'team:delete', 'designers').code, 0);
      assert.equal(await p.services.teams.find('designers'), undefined);
    });

    it('refuses bad input cleanly and changes nothing', async () => {
      assert.equal(parley(p, 'team:add', 'ops').code, 0);
      for (const args of [
        ['team:add', 'ops'],
        ['team:add', ' '],
        ['team:adduser', 'nope', 'alice'],
        ['team:adduser', 'ops', 'nobody'],
        ['team:removeuser', 'ops', 'alice'],
        ['team:delete', 'nope'],
      ]) {
        const r = parley(p, ...args);
        assert.equal(r.code, 1, args.join(' '));
        assert.match(r.err, /error/i, args.join(' '));
        assert.doesNotMatch(r.err, /at .*\.ts:\d+/, 'no stack trace');
      }
      assert.deepEqual((await p.services.teams.list()).map((t) => t.id), ['ops']);
      assert.deepEqual(await p.services.teams.membersOf('ops'), []);
    });

    it('a deleted user leaves every team', async () => {
      await p.services.teams.addMember('ops', 'bob');
      await p.services.directory.deleteUser('bob');
      assert.deepEqual(await p.services.teams.teamsOf('bob'), []);
    });
  });
}
