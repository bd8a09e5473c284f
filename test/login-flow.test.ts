/**
 * Login Flow v2 and v1 over plain HTTP (docs/reference/accounts-and-login.md#login-flow-v2, docs/reference/accounts-and-login.md#login-flow-v1): init and poll shapes,
 * 404 `[]` until granted and after the one successful poll, the CSRF rules of the forms (state
 * cookie + form field + Origin), one answer for wrong and unknown logins, the brute-force cap,
 * one-time link opening, lifetime, the v1 `nc://` redirect, one winner for concurrent polls and
 * grants, and the resulting app password (named after the client) used and revoked over OCS.
 * The same flows in a real browser: login-flow-browser.test.ts.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, basic, call, createUser, dialects, passwordOf, startParley, type Parley } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';

const ANDROID_UA = 'Mozilla/5.0 (Android) Nextcloud-Talk v22.0.0';
const DESKTOP_UA = 'laptop (Talk Desktop - Linux)';

interface Res {
  status: number;
  location: string | null;
  cookie: string | null;
  text: string;
}

async function req(p: Parley, method: string, path: string, opts: { headers?: Record<string, string>; form?: Record<string, string> } = {}): Promise<Res> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  let body: string | undefined;
  if (opts.form) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.form).toString();
  }
  const url = path.startsWith('http') ? path : p.url + path;
  const r = await fetch(url, { method, headers, body, redirect: 'manual' });
  const set = r.headers.get('set-cookie');
  return { status: r.status, location: r.headers.get('location'), cookie: set ? set.split(';')[0] : null, text: await r.text() };
}

const stateOf = (html: string) => /name="stateToken" value="([A-Za-z0-9]+)"/.exec(html)?.[1] ?? '';

/** Starts a v2 flow and opens its login link; returns the poll data and the browser's cookie. */
async function openV2(p: Parley) {
  const init = await req(p, 'POST', '/index.php/login/v2', { headers: { 'User-Agent': ANDROID_UA } });
  assert.equal(init.status, 200);
  const j = JSON.parse(init.text);
  const opened = await req(p, 'GET', j.login);
  assert.equal(opened.status, 303);
  assert.equal(opened.location, '/index.php/login/v2/grant');
  assert.match(opened.cookie!, /^parley_flow=[A-Za-z0-9]{64}$/);
  const pageRes = await req(p, 'GET', '/index.php/login/v2/grant', { headers: { Cookie: opened.cookie! } });
  return { poll: j.poll, login: j.login as string, cookie: opened.cookie!, state: stateOf(pageRes.text), page: pageRes };
}

async function logIn(p: Parley, base: string, cookie: string, state: string, user: string, password: string, origin?: string) {
  return req(p, 'POST', `${base}/login`, { headers: { Cookie: cookie, ...(origin ? { Origin: origin } : {}) }, form: { stateToken: state, user, password } });
}

const poll = (p: Parley, endpoint: string, token: string) => req(p, 'POST', endpoint, { form: { token } });

for (const dialect of dialects()) {
  describe(`login flows over HTTP [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      await createUser(p, 'alice', { displayName: 'Alice Liddell' });
    });
    after(async () => p?.close());

    it('v2 init answers plain JSON with 128-character tokens and absolute URLs', async () => {
      const r = await req(p, 'POST', '/index.php/login/v2');
      assert.equal(r.status, 200);
      const j = JSON.parse(r.text);
      assert.deepEqual(Object.keys(j).sort(), ['login', 'poll']);
      assert.match(j.poll.token, /^[A-Za-z0-9]{128}$/);
      assert.equal(j.poll.endpoint, `${p.url}/index.php/login/v2/poll`);
      assert.match(j.login, new RegExp(`^${p.url}/index\\.php/login/v2/flow/[A-Za-z0-9]{128}$`));
      // Pretty-URL form answers too.
      assert.equal((await req(p, 'POST', '/login/v2')).status, 200);
    });

    it('poll answers 404 [] for unknown, malformed and not yet granted tokens', async () => {
      const { poll: pl } = await openV2(p);
      for (const token of [pl.token, 'x'.repeat(128), 'short', '', 'x'.repeat(100_000)]) {
        const r = await poll(p, pl.endpoint, token);
        assert.equal(r.status, 404, token.slice(0, 140));
        assert.equal(r.text, '[]');
      }
      // A NUL byte is bad input on every route outside OCS as inside it (docs/security.md).
      assert.equal((await poll(p, pl.endpoint, 'a\u0000b')).status, 400);
      assert.equal((await req(p, 'POST', '/index.php/login/v2/poll')).status, 404);
      // The framework also reads the token from JSON: a token that is not a string is no token.
      for (const token of [5, ['x'], { a: 1 }, null]) {
        const r = await fetch(`${p.url}/index.php/login/v2/poll`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ token }),
        });
        assert.equal(r.status, 404, JSON.stringify(token));
        assert.equal(await r.text(), '[]');
      }
    });

    it('v2 end to end: login, grant, one poll, the app password works and can be revoked', async () => {
      const f = await openV2(p);
      assert.match(f.page.text, /Nextcloud-Talk v22\.0\.0/);
      assert.match(f.page.text, /name="password"/);
      const ok = await logIn(p, '/index.php/login/v2', f.cookie, f.state, 'alice', passwordOf('alice'), p.url);
      assert.equal(ok.status, 303);
      const grantPage = await req(p, 'GET', '/index.php/login/v2/grant', { headers: { Cookie: f.cookie } });
      assert.match(grantPage.text, /Grant access/);
      assert.match(grantPage.text, /alice/);
      assert.equal((await poll(p, f.poll.endpoint, f.poll.token)).status, 404, 'not granted yet');
      const done = await req(p, 'POST', '/index.php/login/v2/grant', { headers: { Cookie: f.cookie, Origin: p.url }, form: { stateToken: f.state } });
      assert.equal(done.status, 200);
      assert.match(done.text, /Account connected/);
      assert.doesNotMatch(done.text, /[A-Za-z0-9]{72}/, 'the page never shows the app password');

      const r = await poll(p, f.poll.endpoint, f.poll.token);
      assert.equal(r.status, 200);
      const creds = JSON.parse(r.text);
      assert.deepEqual(Object.keys(creds).sort(), ['appPassword', 'loginName', 'server']);
      assert.equal(creds.server, p.url);
      assert.equal(creds.loginName, 'alice');
      assert.match(creds.appPassword, /^[A-Za-z0-9]{72}$/);
      assert.equal((await poll(p, f.poll.endpoint, f.poll.token)).status, 404, 'second poll');

      const user = await call(p, 'GET', '/cloud/user', { as: { authorization: basic('alice', creds.appPassword) } });
      assert.equal(user.status, 200);
      assert.equal(user.data.id, 'alice');
      const row = await p.services.db.kysely.selectFrom('app_passwords').select('name').where('user_id', '=', 'alice').execute();
      assert.ok(
        row.some((x) => x.name === ANDROID_UA),
        'named after the client',
      );
      const revoke = await call(p, 'DELETE', '/core/apppassword', { as: { authorization: basic('alice', creds.appPassword) } });
      assert.equal(revoke.status, 200);
      assert.equal((await call(p, 'GET', '/cloud/user', { as: { authorization: basic('alice', creds.appPassword) } })).status, 401);
    });

    it('the forms refuse a missing or wrong state token, a missing cookie and a foreign Origin', async () => {
      const f = await openV2(p);
      const bad = [
        await logIn(p, '/index.php/login/v2', f.cookie, 'A'.repeat(64), 'alice', passwordOf('alice')),
        await logIn(p, '/index.php/login/v2', '', f.state, 'alice', passwordOf('alice')),
        await logIn(p, '/index.php/login/v2', f.cookie, f.state, 'alice', passwordOf('alice'), 'https://evil.example'),
        await req(p, 'POST', '/index.php/login/v2/login', { headers: { Cookie: f.cookie }, form: { user: 'alice', password: passwordOf('alice') } }),
      ];
      for (const r of bad) {
        assert.equal(r.status, 403);
        assert.match(r.text, /invalid or has expired/);
      }
      // None of them logged in: the page still asks for the password, and a grant is refused.
      const still = await req(p, 'GET', '/index.php/login/v2/grant', { headers: { Cookie: f.cookie } });
      assert.match(still.text, /name="password"/);
      const grant = await req(p, 'POST', '/index.php/login/v2/grant', { headers: { Cookie: f.cookie }, form: { stateToken: f.state } });
      assert.equal(grant.status, 403);
      assert.equal((await poll(p, f.poll.endpoint, f.poll.token)).status, 404);
    });

    it('one message for a wrong password and an unknown account; the account is not logged in', async () => {
      const f = await openV2(p);
      const wrong = await logIn(p, '/index.php/login/v2', f.cookie, f.state, 'alice', 'nope');
      const unknown = await logIn(p, '/index.php/login/v2', f.cookie, f.state, 'nobody', 'nope');
      assert.equal(wrong.status, 401);
      assert.equal(unknown.status, 401);
      const msg = (t: string) => /role="alert">([^<]*)</.exec(t)?.[1];
      assert.equal(msg(wrong.text), 'Wrong login or password.');
      assert.equal(msg(wrong.text), msg(unknown.text));
      const grant = await req(p, 'POST', '/index.php/login/v2/grant', { headers: { Cookie: f.cookie }, form: { stateToken: f.state } });
      assert.equal(grant.status, 403);
    });

    it('the login form takes only the account password: an app password cannot mint a second one (v2 and v1)', async () => {
      await createUser(p, 'mallory');
      const first = await call(p, 'GET', '/core/getapppassword', { as: as('mallory') });
      assert.equal(first.status, 200);
      const appPassword = first.data.apppassword as string;
      // Converting an app password answers 403, as Nextcloud's AppPasswordController does.
      assert.equal((await call(p, 'GET', '/core/getapppassword', { as: { authorization: basic('mallory', appPassword) } })).status, 403);
      const count = async () => (await p.services.db.kysely.selectFrom('app_passwords').select('id').where('user_id', '=', 'mallory').execute()).length;
      const before = await count();

      const f = await openV2(p);
      const refused = await logIn(p, '/index.php/login/v2', f.cookie, f.state, 'mallory', appPassword, p.url);
      assert.equal(refused.status, 401);
      assert.match(refused.text, /Wrong login or password\./);
      const grant = await req(p, 'POST', '/index.php/login/v2/grant', { headers: { Cookie: f.cookie, Origin: p.url }, form: { stateToken: f.state } });
      assert.equal(grant.status, 403);
      assert.equal((await poll(p, f.poll.endpoint, f.poll.token)).status, 404);

      const start = await req(p, 'GET', '/index.php/login/flow', { headers: { 'OCS-APIRequest': 'true' } });
      const form = await req(p, 'GET', '/index.php/login/flow/grant', { headers: { Cookie: start.cookie! } });
      const v1 = await logIn(p, '/index.php/login/flow', start.cookie!, stateOf(form.text), 'mallory', appPassword, p.url);
      assert.equal(v1.status, 401);
      assert.equal(await count(), before, 'no new app password');
      // Nor does the login form of Parley's own pages open a browser session with it.
      const page = await req(p, 'POST', '/login', { headers: { Origin: p.url }, form: { user: 'mallory', password: appPassword } });
      assert.equal(page.status, 401);
      assert.equal(page.cookie, null);
      // The account's own password still logs in on the same flow.
      assert.equal((await logIn(p, '/index.php/login/v2', f.cookie, f.state, 'mallory', passwordOf('mallory'), p.url)).status, 303);
    });

    it('after a wrong password the login form keeps the account name (escaped)', async () => {
      const f = await openV2(p);
      const wrong = await logIn(p, '/index.php/login/v2', f.cookie, f.state, 'alice"<x>', 'nope', p.url);
      assert.equal(wrong.status, 401);
      assert.match(wrong.text, /<input id="user" name="user"[^>]* value="alice&quot;&lt;x&gt;"/);
      assert.match(wrong.text, /name="stateToken" value="[A-Za-z0-9]{64}"/);
      const fresh = await req(p, 'GET', '/index.php/login/v2/grant', { headers: { Cookie: f.cookie } });
      assert.doesNotMatch(fresh.text, /name="user"[^>]* value=/, 'a fresh form is empty');
    });

    it("a browser logged in to Parley's pages skips the login step; a stale or disabled session does not", async () => {
      await createUser(p, 'bob');
      const pageLogin = await req(p, 'POST', '/login', { headers: { Origin: p.url }, form: { user: 'bob', password: passwordOf('bob') } });
      assert.equal(pageLogin.status, 303);
      assert.match(pageLogin.cookie!, /^parley_login=[A-Za-z0-9]{64}$/);

      // Not a session: the login form, as without the cookie.
      const stale = await openV2(p);
      const withStale = await req(p, 'GET', '/index.php/login/v2/grant', { headers: { Cookie: `${stale.cookie}; parley_login=${'A'.repeat(64)}` } });
      assert.equal(withStale.status, 200);
      assert.match(withStale.text, /name="password"/);

      const f = await openV2(p);
      const cookies = `${f.cookie}; ${pageLogin.cookie}`;
      const page = await req(p, 'GET', '/index.php/login/v2/grant', { headers: { Cookie: cookies } });
      assert.equal(page.status, 200);
      assert.match(page.text, /Grant access/);
      assert.match(page.text, /<strong>bob<\/strong>/);
      assert.doesNotMatch(page.text, /name="password"/);
      // The session's account is remembered on the flow: the grant needs only the flow's cookie.
      const done = await req(p, 'POST', '/index.php/login/v2/grant', { headers: { Cookie: f.cookie, Origin: p.url }, form: { stateToken: f.state } });
      assert.equal(done.status, 200);
      const creds = JSON.parse((await poll(p, f.poll.endpoint, f.poll.token)).text);
      assert.equal(creds.loginName, 'bob');

      // A disabled account's session no longer logs the browser in.
      await p.services.db.kysely.updateTable('users').set({ enabled: 0 }).where('id', '=', 'bob').execute();
      const g = await openV2(p);
      const disabled = await req(p, 'GET', '/index.php/login/v2/grant', { headers: { Cookie: `${g.cookie}; ${pageLogin.cookie}` } });
      assert.match(disabled.text, /name="password"/);
    });

    it('a login link opens once; an unknown or malformed one is refused', async () => {
      const f = await openV2(p);
      assert.equal((await req(p, 'GET', f.login)).status, 403);
      assert.equal((await req(p, 'GET', '/index.php/login/v2/flow/' + 'A'.repeat(128))).status, 403);
      assert.equal((await req(p, 'GET', '/index.php/login/v2/flow/%00abc')).status, 400, 'a NUL byte is bad input');
      assert.equal((await req(p, 'GET', '/index.php/login/v2/grant')).status, 403, 'no cookie');
    });

    it('concurrent polls and grants: exactly one wins', async () => {
      const f = await openV2(p);
      await logIn(p, '/index.php/login/v2', f.cookie, f.state, 'alice', passwordOf('alice'));
      const before = await p.services.db.kysely.selectFrom('app_passwords').select('id').where('user_id', '=', 'alice').execute();
      const grants = await Promise.all(
        [1, 2, 3].map(() => req(p, 'POST', '/index.php/login/v2/grant', { headers: { Cookie: f.cookie }, form: { stateToken: f.state } })),
      );
      assert.deepEqual(grants.map((g) => g.status).sort(), [200, 403, 403]);
      const afterRows = await p.services.db.kysely.selectFrom('app_passwords').select('id').where('user_id', '=', 'alice').execute();
      assert.equal(afterRows.length, before.length + 1, 'the losers leave no app password behind');
      const polls = await Promise.all([1, 2, 3, 4].map(() => poll(p, f.poll.endpoint, f.poll.token)));
      assert.deepEqual(polls.map((r) => r.status).sort(), [200, 404, 404, 404]);
    });

    it('v1: refused without OCS-APIRequest; login and grant end in the nc:// redirect once', async () => {
      const plain = await req(p, 'GET', '/index.php/login/flow');
      assert.equal(plain.status, 403);
      assert.match(plain.text, /Access forbidden/);
      const start = await req(p, 'GET', '/index.php/login/flow', { headers: { 'OCS-APIRequest': 'true', 'User-Agent': DESKTOP_UA } });
      assert.equal(start.status, 303);
      assert.equal(start.location, '/index.php/login/flow/grant');
      const cookie = start.cookie!;
      const form = await req(p, 'GET', '/index.php/login/flow/grant', { headers: { Cookie: cookie } });
      assert.match(form.text, /Talk Desktop - Linux/);
      const state = stateOf(form.text);
      assert.equal((await logIn(p, '/index.php/login/flow', cookie, state, 'alice', passwordOf('alice'))).status, 303);
      const grantPage = await req(p, 'GET', '/index.php/login/flow/grant', { headers: { Cookie: cookie } });
      assert.match(grantPage.text, /Grant access/);
      const done = await req(p, 'POST', '/index.php/login/flow/grant', { headers: { Cookie: cookie, Origin: p.url }, form: { stateToken: state } });
      assert.equal(done.status, 303);
      const m = /^nc:\/\/login\/server:(.+)&user:(.+)&password:([A-Za-z0-9]{72})$/.exec(done.location ?? '');
      assert.ok(m, done.location ?? '');
      assert.equal(m[1], p.url);
      assert.equal(decodeURIComponent(m[2]), 'alice');
      const user = await call(p, 'GET', '/cloud/user', { as: { authorization: basic('alice', m[3]) } });
      assert.equal(user.status, 200);
      const again = await req(p, 'POST', '/index.php/login/flow/grant', { headers: { Cookie: cookie }, form: { stateToken: state } });
      assert.equal(again.status, 403, 'a v1 flow completes once');
    });

    it('BASE_URL is the server handed to clients; without it the address HOST and PORT name', async () => {
      const plain = JSON.parse((await req(p, 'POST', '/index.php/login/v2')).text);
      assert.equal(plain.poll.endpoint, `${p.url}/index.php/login/v2/poll`);
      const q = await startParley(dialect, { env: { ...NO_THROTTLE, BASE_URL: 'https://talk.example.org/' } });
      try {
        const j = JSON.parse((await req(q, 'POST', '/index.php/login/v2')).text);
        assert.equal(j.poll.endpoint, 'https://talk.example.org/index.php/login/v2/poll');
      } finally {
        await q.close();
      }
    });

    it('X-Forwarded-Proto and X-Forwarded-Host never choose the URLs handed out', async () => {
      const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'talk.example.org' };
      const ignored = JSON.parse((await req(p, 'POST', '/index.php/login/v2', { headers: forwarded })).text);
      assert.equal(ignored.poll.endpoint, `${p.url}/index.php/login/v2/poll`, "no TRUSTED_PROXIES: the headers are anybody's");
      assert.ok(ignored.login.startsWith(`${p.url}/`));
      // From a trusted proxy the forwarded host is checked (trusted-domains.test.ts), never used.
      const q = await startParley(dialect, { env: { ...NO_THROTTLE, TRUSTED_PROXIES: '127.0.0.1', TRUSTED_DOMAINS: 'talk.example.org' } });
      try {
        const j = JSON.parse((await req(q, 'POST', '/index.php/login/v2', { headers: forwarded })).text);
        assert.equal(j.poll.endpoint, `${q.url}/index.php/login/v2/poll`);
      } finally {
        await q.close();
      }
    });
  });

  describe(`login flows: lifetime [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: { ...NO_THROTTLE, LOGIN_FLOW_LIFETIME_SECONDS: '1' } });
    });
    after(async () => p?.close());

    it('a flow expires after its lifetime (link and poll)', async () => {
      const init = JSON.parse((await req(p, 'POST', '/index.php/login/v2')).text);
      await new Promise((r) => setTimeout(r, 2200));
      assert.equal((await req(p, 'GET', init.login)).status, 403);
      assert.equal((await poll(p, init.poll.endpoint, init.poll.token)).status, 404);
    });
  });

  describe(`login flows: brute-force cap [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: { BRUTE_FORCE_DELAY_MS: '0', BRUTE_FORCE_MAX_ATTEMPTS: '3' } });
      await createUser(p, 'alice');
    });
    after(async () => p?.close());

    it('past the cap the login page answers 429, also for the right password, as the API does', async () => {
      const f = await openV2(p);
      for (let i = 0; i < 3; i++) assert.equal((await logIn(p, '/index.php/login/v2', f.cookie, f.state, 'alice', 'wrong')).status, 401);
      const r = await logIn(p, '/index.php/login/v2', f.cookie, f.state, 'alice', passwordOf('alice'));
      assert.equal(r.status, 429);
      assert.match(r.text, /Too many failed attempts/);
      assert.equal((await call(p, 'GET', '/cloud/user', { as: { user: 'alice', password: passwordOf('alice') } })).status, 429);
    });
  });
}
