/**
 * `parley user:*` and `parley group:*` (docs/operators.md "Accounts from the command line"), run
 * as real processes against a fresh database (SQLite directory, or a PostgreSQL schema via
 * DATABASE_URL + DATABASE_SCHEMA). A refused command prints `error: ...`, exits 1 and changes
 * nothing.
 *
 * A real process costs about a second of CPU (tsx loads the whole tree), so the binary's exit
 * codes are checked with a few spawned processes per database (plus the terminal prompt on
 * SQLite), and the other commands run in this process through the same program (runCli), each
 * opening its own database connection from the environment as the binary does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { openServices } from '../src/boot.js';
import { dropSchema } from '../src/db/database.js';
import { verifyPassword } from '../src/domain/passwords.js';
import type { Services } from '../src/services/index.js';
import { loadSettings } from '../src/settings.js';
import { expectRefusal, runCli, spawnCli, type Run } from './helpers/cli.js';
import { dialects, freshEnv } from './helpers/parley.js';
import { registerServer } from './helpers/servers-by-schema.js';

const MAIN = path.resolve('src/main.ts');

for (const dialect of dialects()) {
  describe(`accounts: CLI [${dialect}]`, () => {
    let env: Record<string, string>;
    let s: Services;
    let unregister: () => void = () => undefined;

    /** `parley ...args` in this process (sequential: it swaps process.env and console). */
    const parley = (args: string[], extra: Record<string, string> = {}): Promise<Run> => runCli({ ...env, ...extra }, args);
    /** `parley ...args` as a real process with stdin closed (not a terminal). */
    const spawned = (args: string[], extra: Record<string, string> = {}): Promise<Run> => spawnCli({ ...env, ...extra }, args);

    before(async () => {
      env = freshEnv(dialect);
      s = await openServices(loadSettings(env));
      // Its reads after a command must see what the command wrote: on PostgreSQL its read cache
      // hears another connection's commits by notification, so runCli waits for that.
      unregister = registerServer(env.DATABASE_SCHEMA, s.db);
      await s.directory.createGroup('staff');
    });
    after(async () => {
      unregister();
      await s.db.close();
      if (env.DATABASE_URL && env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
      fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
    });

    it('user:add (a real process) creates a user from OC_PASS with display name, email and groups', async () => {
      const r = await spawned(['user:add', 'alice', '--password-from-env', '--display-name', 'Alice A', '--email', 'alice@example.com', '-g', 'staff'], {
        OC_PASS: 'alice-secret-1',
      });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /The account "alice" was created successfully/);
      const u = await s.directory.getUser('alice');
      assert.equal(u?.display_name, 'Alice A');
      assert.equal(u?.email, 'alice@example.com');
      assert.ok(await verifyPassword(u!.password_hash, 'alice-secret-1'));
      assert.deepEqual(await s.directory.groupsOf('alice'), ['staff']);
    });

    it('user:add refusals exit 1 and create nothing (the duplicate as a real process)', async () => {
      const dup = await spawned(['user:add', 'alice', '--password-from-env', '--display-name', 'Impostor'], { OC_PASS: 'other-pass-1' });
      expectRefusal(dup, /User already exists/);
      expectRefusal(await parley(['user:add', 'bob', '--password-from-env', '-g', 'staff', 'nope'], { OC_PASS: 'bob-secret-1' }), /group nope does not exist/);
      expectRefusal(await parley(['user:add', 'bob', '--password-from-env'], { OC_PASS: '' }), /OC_PASS is empty/);
      expectRefusal(await parley(['user:add', 'bad/id', '--password-from-env'], { OC_PASS: 'bob-secret-1' }), /Only the following characters/);
      assert.equal(await s.directory.getUser('bad/id'), undefined);
      assert.equal((await s.directory.getUser('alice'))?.display_name, 'Alice A');
      assert.ok(await verifyPassword((await s.directory.getUser('alice'))!.password_hash, 'alice-secret-1'));
      assert.equal(await s.directory.getUser('bob'), undefined);
    });

    /** util-linux `script` gives the command a pseudo-terminal, so the interactive prompt runs. */
    const SCRIPT = '/usr/bin/script';
    // The prompt does not depend on the database: once, on SQLite.
    const ttySkip = dialect !== 'sqlite' ? 'runs on SQLite only' : !fs.existsSync(SCRIPT) ? `${SCRIPT} (util-linux) is missing` : false;

    it('user:add on a terminal asks for the password twice without echoing it', { skip: ttySkip }, async () => {
      const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
      delete childEnv.OC_PASS;
      const cmd = `'${process.execPath}' --import tsx '${MAIN}' user:add tina --display-name Tina`;
      const child = spawn(SCRIPT, ['-qec', cmd, '/dev/null'], { env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      let answered = 0;
      child.stdout.on('data', (c) => {
        out += c;
        // Type only once the prompt is shown (the terminal is then in raw mode: no echo).
        if (answered === 0 && out.includes('Enter password:')) {
          answered = 1;
          child.stdin.write('tina-tty-pass\r');
        } else if (answered === 1 && out.includes('Confirm password:')) {
          answered = 2;
          child.stdin.write('tina-tty-pass\r');
        }
      });
      const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
      assert.equal(code, 0, out);
      assert.match(out, /The account "tina" was created successfully/);
      assert.ok(!out.includes('tina-tty-pass'), 'the password was echoed');
      assert.ok(await verifyPassword((await s.directory.getUser('tina'))!.password_hash, 'tina-tty-pass'));
      await s.directory.deleteUser('tina');
    });

    // A real process costs a second of CPU; the refusal does not depend on the database.
    const sqliteOnly = dialect === 'sqlite' ? false : 'runs on SQLite only';

    it('user:add without a password source, stdin not a terminal (a real process): exit 1', { skip: sqliteOnly }, async () => {
      expectRefusal(await spawned(['user:add', 'bob']), /--password-from-env/);
      assert.equal(await s.directory.getUser('bob'), undefined);
    });

    it('user:list prints plain and json_pretty (with limit and offset)', async () => {
      await s.directory.createUser({ id: 'carol', password: 'carol-secret-1', displayName: 'Carol C' });
      const plain = await parley(['user:list']);
      assert.equal(plain.code, 0, plain.stderr);
      assert.equal(plain.stdout, '  - alice: Alice A\n  - carol: Carol C\n');
      const json = await parley(['user:list', '--output=json', '--search', 'CAROL']);
      assert.deepEqual(JSON.parse(json.stdout), { carol: 'Carol C' });
      const pretty = await parley(['user:list', '--output=json_pretty', '--limit', '1', '--offset', '1']);
      assert.equal(pretty.stdout, '{\n    "carol": "Carol C"\n}\n');
    });

    it('user:list with a bad --output or --limit exits 1', async () => {
      expectRefusal(await parley(['user:list', '--limit', 'many']), /--limit must be a whole number/);
      expectRefusal(await parley(['user:list', '--output=xml']), /--output must be one of plain, json, json_pretty/);
    });

    it('user:reset-password sets a new password; an unknown user exits 1', async () => {
      const ok = await parley(['user:reset-password', 'carol', '--password-from-env'], { OC_PASS: 'carol-new-pass' });
      const unknown = await parley(['user:reset-password', 'nobody', '--password-from-env'], { OC_PASS: 'whatever-1' });
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /Successfully reset password for carol/);
      assert.ok(await verifyPassword((await s.directory.getUser('carol'))!.password_hash, 'carol-new-pass'));
      expectRefusal(unknown, /User does not exist/);
      assert.ok(await verifyPassword((await s.directory.getUser('carol'))!.password_hash, 'carol-new-pass'));
    });

    it('user:disable and user:enable; an unknown user exits 1', async () => {
      expectRefusal(await parley(['user:disable', 'nobody']), /User does not exist/);
      const off = await parley(['user:disable', 'carol']);
      assert.equal(off.code, 0, off.stderr);
      assert.equal((await s.directory.getUser('carol'))?.enabled, 0);
      // A stray word is refused and nothing changes (commander would otherwise drop it silently).
      expectRefusal(await parley(['user:enable', 'carol', 'dave-typo']), /too many arguments/);
      assert.equal((await s.directory.getUser('carol'))?.enabled, 0);
      const on = await parley(['user:enable', 'carol']);
      assert.equal(on.code, 0, on.stderr);
      assert.equal((await s.directory.getUser('carol'))?.enabled, 1);
    });

    it('group:add, group:adduser, group:list, group:removeuser', async () => {
      const add = await parley(['group:add', 'devs', '--display-name', 'Developers']);
      assert.equal(add.code, 0, add.stderr);
      assert.equal((await s.directory.groups.find('devs'))?.display_name, 'Developers');
      const addUser = await parley(['group:adduser', 'devs', 'carol']);
      assert.equal(addUser.code, 0, addUser.stderr);
      const plain = await parley(['group:list']);
      const json = await parley(['group:list', '--output=json']);
      assert.equal(plain.stdout, '  - devs:\n    - carol\n  - staff:\n    - alice\n');
      assert.deepEqual(JSON.parse(json.stdout), { devs: ['carol'], staff: ['alice'] });
      const remove = await parley(['group:removeuser', 'devs', 'carol']);
      assert.equal(remove.code, 0, remove.stderr);
      assert.deepEqual(await s.directory.membersOf('devs'), []);
    });

    it('group refusals exit 1 and change nothing', async () => {
      await s.directory.createGroup('admin');
      await s.directory.addToGroup('admin', 'alice');
      expectRefusal(await parley(['group:add', 'devs']), /group exists/);
      expectRefusal(await parley(['group:adduser', 'nope', 'carol']), /group does not exist/);
      expectRefusal(await parley(['group:adduser', 'devs', 'nobody']), /user does not exist/);
      expectRefusal(await parley(['group:removeuser', 'devs', 'nobody']), /user does not exist/);
      expectRefusal(await parley(['group:delete', 'admin']), /admin group cannot be deleted/);
      expectRefusal(await parley(['group:delete', 'nope']), /group does not exist/);
      expectRefusal(await parley(['group:list', '--output=yaml']), /--output must be one of/);
      assert.equal((await s.directory.groups.find('devs'))?.display_name, 'Developers');
      assert.deepEqual(await s.directory.membersOf('admin'), ['alice']);
      assert.deepEqual(await s.directory.membersOf('devs'), []);
    });

    it('group:delete and user:delete remove them; an unknown user exits 1', async () => {
      const delGroup = await parley(['group:delete', 'devs']);
      const delUser = await parley(['user:delete', 'carol']);
      assert.equal(delGroup.code, 0, delGroup.stderr);
      assert.equal(delUser.code, 0, delUser.stderr);
      expectRefusal(await parley(['user:delete', 'nobody']), /User does not exist/);
      assert.equal(await s.directory.groups.find('devs'), undefined);
      assert.equal(await s.directory.getUser('carol'), undefined);
      assert.ok(await s.directory.getUser('alice'));
    });
  });
}
