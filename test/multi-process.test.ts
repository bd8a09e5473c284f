/**
 * Several Parley processes on one database (docs/operators.md "Several processes"): two real
 * `parley serve` processes (`node --import tsx src/main.ts serve`) share one PostgreSQL schema
 * (when PARLEY_TEST_PG is set), and again one SQLite file (one DATA_DIR). A change made through
 * one (an app config value, a new user) is seen by the other on its very next request, on both
 * databases (SQLite: the change stamp; PostgreSQL: each request first hears every earlier commit,
 * docs/architecture.md "Caches across processes"), and never the old value after. A new
 * user logs in through the other process at once on both (the password check reads the stored
 * row).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { dropSchema } from '../src/db/database.js';
import { admin, basic, dialects, freshEnv } from './helpers/parley.js';
import { ocs, serve, stop, type Proc } from './helpers/processes.js';
import { seenAcross } from './helpers/eventually.js';

const ADMIN = basic(admin.user!, admin.password!);
const CONFIG = '/apps/provisioning_api/api/v1/config/apps/spreed';

for (const dialect of dialects()) {
  describe(`two parley processes on one ${dialect === 'postgres' ? 'PostgreSQL schema' : 'SQLite file'}`, () => {
    let env: Record<string, string>;
    let a: Proc | undefined;
    let b: Proc | undefined;

    before(async () => {
      env = freshEnv(dialect);
      // One after the other: the first creates and migrates the database.
      a = await serve(env);
      b = await serve(env);
    });
    after(async () => {
      await Promise.all([stop(a), stop(b)]);
      if (env.DATABASE_URL && env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
      fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
    });

    it('an app config change made through one is seen by the other on its next request', async () => {
      const gif = async (p: Proc) => (await ocs(p, 'GET', '/cloud/capabilities', ADMIN)).data.capabilities.spreed.config.previews['max-gif-size'];
      // Both have served (and cached) the current document first.
      assert.equal(await gif(a!), 3145728);
      assert.equal(await gif(b!), 3145728);
      assert.equal((await ocs(a!, 'POST', `${CONFIG}/max_gif_size`, ADMIN, { value: '4242' })).status, 200);
      await seenAcross(
        dialect,
        'the new value on the other process',
        () => gif(b!),
        (v) => v === 4242,
      );
      assert.equal((await ocs(b!, 'GET', `${CONFIG}/max_gif_size`, ADMIN)).data.data, '4242');
      assert.equal((await ocs(b!, 'DELETE', `${CONFIG}/max_gif_size`, ADMIN)).status, 200);
      await seenAcross(
        dialect,
        'the default again on the first process',
        () => gif(a!),
        (v) => v === 3145728,
      );
    });

    it('each of 40 consecutive changes, alternating writer, is seen by the next requests to the other', async () => {
      // Both processes serve cached documents between the writes, so a change signal that
      // missed even one commit (or saw it late) would show an old value here.
      for (let i = 1; i <= 40; i++) {
        const [writer, reader] = i % 2 ? [a!, b!] : [b!, a!];
        const value = String(1_000_000 + i);
        assert.equal((await ocs(writer, 'POST', `${CONFIG}/max_gif_size`, ADMIN, { value })).status, 200);
        // Several requests at once: they arrive together and share one reading of the change signal.
        const readFive = () =>
          Promise.all(
            Array.from(
              { length: 5 },
              async () => (await ocs(reader, 'GET', '/cloud/capabilities', ADMIN)).data.capabilities.spreed.config.previews['max-gif-size'],
            ),
          );
        await seenAcross(dialect, `change ${i}`, readFive, (seen) => seen.every((v) => v === Number(value)));
        // Once seen, never the old value again.
        assert.deepEqual(await readFive(), Array(5).fill(Number(value)), `change ${i} (again)`);
        const own = (await ocs(writer, 'GET', '/cloud/capabilities', ADMIN)).data.capabilities.spreed.config.previews['max-gif-size'];
        assert.equal(own, Number(value), `change ${i} on the writer`);
      }
      assert.equal((await ocs(a!, 'DELETE', `${CONFIG}/max_gif_size`, ADMIN)).status, 200);
      const gif = async () => (await ocs(b!, 'GET', '/cloud/capabilities', ADMIN)).data.capabilities.spreed.config.previews['max-gif-size'];
      await seenAcross(dialect, 'the default again', gif, (v) => v === 3145728);
    });

    it('a user created through one can log in through the other at once', async () => {
      const carol = basic('carol', 'carol-password-123');
      assert.equal((await ocs(b!, 'GET', '/cloud/capabilities', carol)).status, 401);
      const created = await ocs(a!, 'POST', '/cloud/users', ADMIN, { userid: 'carol', password: 'carol-password-123' });
      assert.equal(created.status, 200, JSON.stringify(created.data));
      const seen = await ocs(b!, 'GET', '/cloud/users/carol', ADMIN);
      assert.equal(seen.status, 200);
      assert.equal(seen.data.id, 'carol');
      const caps = await ocs(b!, 'GET', '/cloud/capabilities', carol);
      assert.equal(caps.status, 200);
      assert.equal(caps.data.capabilities.spreed.config.attachments.folder, '/Talk');
    });

    it('allowed_groups set through one locks the user out of Talk on the other at once', async () => {
      const carol = basic('carol', 'carol-password-123');
      assert.ok('spreed' in (await ocs(b!, 'GET', '/cloud/capabilities', carol)).data.capabilities);
      assert.equal((await ocs(a!, 'POST', `${CONFIG}/allowed_groups`, ADMIN, { value: '["admin"]' })).status, 200);
      await seenAcross(
        dialect,
        'locked out on the other process',
        async () => (await ocs(b!, 'GET', '/cloud/capabilities', carol)).data.capabilities,
        (c) => !('spreed' in c),
      );
      assert.equal((await ocs(b!, 'GET', '/apps/spreed/api/v4/room', carol)).status, 403);
      assert.equal((await ocs(b!, 'DELETE', `${CONFIG}/allowed_groups`, ADMIN)).status, 200);
      await seenAcross(
        dialect,
        'allowed again on the first process',
        async () => (await ocs(a!, 'GET', '/apps/spreed/api/v4/room', carol)).status,
        (s) => s === 200,
      );
      assert.equal(a!.child.exitCode, null, a!.output());
      assert.equal(b!.child.exitCode, null, b!.output());
    });
  });
}
