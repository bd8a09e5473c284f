/**
 * Login flow v2's one-winner rules across two real `parley serve` processes on one database
 * (PostgreSQL when PARLEY_TEST_PG is set, and one SQLite file): the grant is submitted to both
 * processes at once (one succeeds, the others get 403 and leave no app password), both
 * processes are polled at once with the same token (exactly one poll gets the credentials, and
 * only once), and the winner's app password works on either process. Held by the database: the
 * grant is a conditional update and the poll a delete-returning (db/repositories/login-flows.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { dropSchema } from '../src/db/database.js';
import { admin, basic, dialects, freshEnv } from './helpers/parley.js';
import { ocs, serve, stop, type Proc } from './helpers/processes.js';

const ADMIN = basic(admin.user!, admin.password!);
const PASSWORD = 'a long enough password for Alice';

interface Res {
  status: number;
  location: string | null;
  cookie: string | null;
  text: string;
}

async function req(url: string, method: string, opts: { headers?: Record<string, string>; form?: Record<string, string> } = {}): Promise<Res> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  let body: string | undefined;
  if (opts.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  }
  const r = await fetch(url, { method, headers, body, redirect: 'manual' });
  const set = r.headers.get('set-cookie');
  return { status: r.status, location: r.headers.get('location'), cookie: set ? set.split(';')[0] : null, text: await r.text() };
}

const stateOf = (html: string) => /name="stateToken" value="([A-Za-z0-9]+)"/.exec(html)?.[1] ?? '';

for (const dialect of dialects()) {
  describe(`login flow v2 across two processes on one ${dialect === 'postgres' ? 'PostgreSQL schema' : 'SQLite file'}`, () => {
    let env: Record<string, string>;
    let a: Proc | undefined;
    let b: Proc | undefined;

    before(async () => {
      env = freshEnv(dialect, { BRUTE_FORCE_MAX_ATTEMPTS: '1000' });
      a = await serve(env);
      b = await serve(env);
      const created = await ocs(a, 'POST', '/cloud/users', ADMIN, { userid: 'alice', password: PASSWORD });
      assert.equal(created.status, 200, JSON.stringify(created.data));
    });
    after(async () => {
      await Promise.all([stop(a), stop(b)]);
      if (env.DATABASE_URL && env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
      fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
    });

    it('concurrent grants on both processes: one wins; concurrent polls on both: the credentials go out once', async () => {
      for (let round = 0; round < 3; round++) {
        // The flow starts on one process and is logged into there.
        const init = JSON.parse((await req(`${a!.url}/index.php/login/v2`, 'POST', { headers: { 'User-Agent': 'Nextcloud-Talk v22 (Android)' } })).text);
        const opened = await req(init.login, 'GET');
        assert.equal(opened.status, 303);
        const cookie = opened.cookie!;
        const page = await req(`${a!.url}/index.php/login/v2/grant`, 'GET', { headers: { Cookie: cookie } });
        const state = stateOf(page.text);
        const login = await req(`${a!.url}/index.php/login/v2/login`, 'POST', {
          headers: { Cookie: cookie },
          form: { stateToken: state, user: 'alice', password: PASSWORD },
        });
        assert.ok(login.status < 400, `login ${login.status} ${login.text.slice(0, 200)}`);

        // Grants submitted to both processes at once (the flow state is in the database).
        const grants = await Promise.all(
          [a!, b!, a!, b!].map((p) => req(`${p.url}/index.php/login/v2/grant`, 'POST', { headers: { Cookie: cookie }, form: { stateToken: state } })),
        );
        assert.deepEqual(grants.map((g) => g.status).sort(), [200, 403, 403, 403], `round ${round}`);

        // Both processes polled at once with the same token.
        const polls = await Promise.all(
          [a!, b!, a!, b!, a!, b!].map((p) => req(`${p.url}/index.php/login/v2/poll`, 'POST', { form: { token: init.poll.token } })),
        );
        assert.deepEqual(polls.map((r) => r.status).sort(), [200, 404, 404, 404, 404, 404], `round ${round}`);
        const creds = JSON.parse(polls.find((r) => r.status === 200)!.text);
        assert.equal(creds.loginName, 'alice');
        // Once taken, never again, on either process.
        for (const p of [a!, b!]) assert.equal((await req(`${p.url}/index.php/login/v2/poll`, 'POST', { form: { token: init.poll.token } })).status, 404);
        // The grant cannot be used a second time either.
        assert.equal((await req(`${b!.url}/index.php/login/v2/grant`, 'POST', { headers: { Cookie: cookie }, form: { stateToken: state } })).status, 403);

        // The app password works against both processes.
        const auth = basic('alice', creds.appPassword);
        for (const p of [a!, b!]) assert.equal((await ocs(p, 'GET', '/cloud/user', auth)).status, 200);
      }
    });
  });
}
