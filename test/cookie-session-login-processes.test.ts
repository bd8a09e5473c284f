/**
 * A user's Talk-session cookie (`parley_session`) is bound to the login that opened it
 * (docs/security.md "Logins, Talk-session cookies and what follows an account"). Two real
 * `parley serve` processes on one database: the user joins through A (HTTP Basic with an app
 * password or the password), the credential changes through A, and a request carrying only the
 * cookie is refused by B: the app password revoked, the password changed, the account disabled,
 * `allowed_groups` no longer admitting the user. The session ends with the change, the call it
 * was in too. A guest's cookie keeps working.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, basic, dialects, type DialectName } from './helpers/parley.js';
import { ocs, TWO_PROCESS_PASSWORD, useTwoProcesses, type Proc } from './helpers/processes.js';
import { eventually } from './helpers/eventually.js';

const ADMIN = basic(admin.user!, admin.password!);
const ALICE = basic('alice', TWO_PROCESS_PASSWORD);
const V4 = '/apps/spreed/api/v4';
const V1 = '/apps/spreed/api/v1';
const CONFIG = '/apps/provisioning_api/api/v1/config/apps/spreed';

/** An OCS request with only a Cookie header (no Authorization). */
async function withCookie(p: Proc, method: string, apiPath: string, cookie: string, form?: Record<string, string>) {
  const res = await fetch(`${p.url}/ocs/v2.php${apiPath}?format=json`, {
    method,
    headers: { 'OCS-APIRequest': 'true', Cookie: cookie, ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  const text = await res.text();
  return { status: res.status, data: text ? JSON.parse(text).ocs?.data : undefined };
}

/** Joins `token` through `p` with `auth`; returns the `parley_session` cookie and the session id. */
async function join(p: Proc, token: string, auth: string): Promise<{ cookie: string; sessionId: string }> {
  const res = await fetch(`${p.url}/ocs/v2.php${V4}/room/${token}/participants/active?format=json`, {
    method: 'POST',
    headers: { 'OCS-APIRequest': 'true', ...(auth ? { Authorization: auth } : {}) },
  });
  assert.equal(res.status, 200);
  const cookie = /parley_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
  assert.ok(cookie);
  return { cookie, sessionId: (await res.json()).ocs.data.sessionId };
}

const post = (p: Proc, token: string, cookie: string, message: string) => withCookie(p, 'POST', `${V1}/chat/${token}`, cookie, { message });

/** The cookie no longer acts on `p` (at once on SQLite; on PostgreSQL within a bound) and stays refused. */
async function refused(dialect: DialectName, p: Proc, token: string, cookie: string, what: string): Promise<void> {
  const tries = await eventually(what, async () => (await post(p, token, cookie, `after: ${what}`)).status === 404);
  if (dialect === 'sqlite') assert.equal(tries, 1, `${what}: refused at the next request`);
  for (let i = 0; i < 3; i++) assert.equal((await post(p, token, cookie, `again: ${what}`)).status, 404, `${what}: accepted again`);
}

for (const dialect of dialects()) {
  describe(`Talk-session cookies bound to their login, across two processes [${dialect}]`, () => {
    const procs = useTwoProcesses(dialect, ['alice', 'bob', 'carol', 'dave', 'erin', 'frank']);

    /** A public conversation of alice's with `user` in it. */
    const roomWith = async (user: string): Promise<string> => {
      const token = (await ocs(procs.a(), 'POST', `${V4}/room`, ALICE, { roomType: '3', roomName: `with ${user}` })).data.token as string;
      assert.equal((await ocs(procs.a(), 'POST', `${V4}/room/${token}/participants`, ALICE, { newParticipant: user, source: 'users' })).status, 200);
      return token;
    };
    const sessionsOf = async (token: string, user: string) => {
      const list = (await ocs(procs.a(), 'GET', `${V4}/room/${token}/participants`, ALICE)).data as any[];
      return list.find((x) => x.actorId === user) as { sessionIds: string[]; inCall: number };
    };

    it('an app password revoked through A: its cookie is refused by B and its session ends; the password-bound cookie stays', async () => {
      const token = await roomWith('bob');
      const app = (await ocs(procs.a(), 'GET', '/core/getapppassword', basic('bob', TWO_PROCESS_PASSWORD))).data.apppassword as string;
      const viaApp = await join(procs.a(), token, basic('bob', app));
      const viaPassword = await join(procs.a(), token, basic('bob', TWO_PROCESS_PASSWORD));
      const actorOf = async (p: Proc) => (await withCookie(p, 'GET', `${V4}/room/${token}`, viaApp.cookie)).data?.actorId as string | undefined;
      for (const p of [procs.a(), procs.b(), procs.a(), procs.b()]) {
        assert.equal((await post(p, token, viaApp.cookie, 'with the app password')).status, 201, 'the cookie acts for the user');
        assert.equal((await post(p, token, viaPassword.cookie, 'with the password')).status, 201);
        // The conversation as the cookie sees it (kept by each process's rendered answers).
        assert.equal(await actorOf(p), 'bob');
      }
      assert.equal((await ocs(procs.a(), 'DELETE', '/core/apppassword', basic('bob', app))).status, 200);
      await refused(dialect, procs.b(), token, viaApp.cookie, 'revoked app password');
      // No kept answer shows the conversation as bob's any more.
      assert.notEqual(await actorOf(procs.b()), 'bob');
      const bob = await sessionsOf(token, 'bob');
      assert.ok(!bob.sessionIds.includes(viaApp.sessionId), 'the session opened with it ended');
      assert.ok(bob.sessionIds.includes(viaPassword.sessionId), 'the other login keeps its session');
      assert.equal((await post(procs.b(), token, viaPassword.cookie, 'still here')).status, 201);
    });

    it('a password changed through A: the cookie opened with the old password is refused by B', async () => {
      const token = await roomWith('carol');
      const app = (await ocs(procs.a(), 'GET', '/core/getapppassword', basic('carol', TWO_PROCESS_PASSWORD))).data.apppassword as string;
      const viaPassword = await join(procs.a(), token, basic('carol', TWO_PROCESS_PASSWORD));
      const viaApp = await join(procs.b(), token, basic('carol', app));
      assert.equal((await post(procs.b(), token, viaPassword.cookie, 'before')).status, 201);
      const NEW = 'carol has a new password now';
      assert.equal((await ocs(procs.a(), 'PUT', '/cloud/users/carol', ADMIN, { key: 'password', value: NEW })).status, 200);
      await refused(dialect, procs.b(), token, viaPassword.cookie, 'changed password');
      assert.ok(!(await sessionsOf(token, 'carol')).sessionIds.includes(viaPassword.sessionId), 'its session ended');
      // App passwords survive a password change (as in Nextcloud), and so do their sessions.
      assert.equal((await post(procs.b(), token, viaApp.cookie, 'app password still valid')).status, 201);
      // A new join with the new password binds the same cookie to it.
      const again = await fetch(`${procs.b().url}/ocs/v2.php${V4}/room/${token}/participants/active?format=json`, {
        method: 'POST',
        headers: { 'OCS-APIRequest': 'true', Authorization: basic('carol', NEW), Cookie: viaPassword.cookie },
      });
      assert.equal(again.status, 200);
      assert.equal((await post(procs.a(), token, viaPassword.cookie, 'logged in again')).status, 201);
    });

    it('a disabled account: the cookie is refused by B, its sessions end and the call it was in ends', async () => {
      const token = await roomWith('dave');
      const dave = await join(procs.a(), token, basic('dave', TWO_PROCESS_PASSWORD));
      const inCall = await withCookie(procs.b(), 'POST', `${V4}/call/${token}`, dave.cookie, { flags: '3' });
      assert.equal(inCall.status, 200, 'the cookie joins the call');
      assert.equal((await sessionsOf(token, 'dave')).inCall, 3);
      const guest = await join(procs.a(), token, '');
      assert.equal((await post(procs.b(), token, guest.cookie, 'a guest')).status, 201);

      assert.equal((await ocs(procs.a(), 'PUT', '/cloud/users/dave/disable', ADMIN)).status, 200);
      await refused(dialect, procs.b(), token, dave.cookie, 'disabled account');
      assert.equal((await withCookie(procs.b(), 'POST', `${V4}/call/${token}`, dave.cookie, { flags: '3' })).status, 404);
      const after = await sessionsOf(token, 'dave');
      assert.deepEqual(
        after.sessionIds.filter((s) => s !== '0'),
        [],
        'no session left',
      );
      assert.equal(after.inCall, 0, 'out of the call');
      const room = (await ocs(procs.b(), 'GET', `${V4}/room/${token}`, ALICE)).data;
      assert.equal(room.hasCall, false, 'the call nobody is in any more ended');
      // Guests' cookies keep working.
      assert.equal((await post(procs.b(), token, guest.cookie, 'the guest stays')).status, 201);
      // Enabled again, the cookie does not come back by itself: it was ended.
      assert.equal((await ocs(procs.a(), 'PUT', '/cloud/users/dave/enable', ADMIN)).status, 200);
      assert.equal((await post(procs.b(), token, dave.cookie, 'back?')).status, 404);
    });

    it('a browser login session ended (logout) through A: the cookie opened through it is refused by B', async () => {
      const token = await roomWith('frank');
      const login = await fetch(`${procs.b().url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { Origin: procs.b().url, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ user: 'frank', password: TWO_PROCESS_PASSWORD }).toString(),
      });
      assert.equal(login.status, 303);
      const browser = /parley_login=[^;]+/.exec(login.headers.get('set-cookie') ?? '')?.[0];
      assert.ok(browser);
      const joined = await fetch(`${procs.a().url}/ocs/v2.php${V4}/room/${token}/participants/active?format=json`, {
        method: 'POST',
        headers: { 'OCS-APIRequest': 'true', Cookie: browser },
      });
      assert.equal(joined.status, 200);
      const cookie = /parley_session=[^;]+/.exec(joined.headers.get('set-cookie') ?? '')?.[0];
      assert.ok(cookie);
      assert.equal((await post(procs.b(), token, cookie, 'from the browser')).status, 201);
      const out = await fetch(`${procs.a().url}/logout`, { method: 'POST', redirect: 'manual', headers: { Origin: procs.a().url, Cookie: browser } });
      assert.equal(out.status, 303);
      await refused(dialect, procs.b(), token, cookie, 'logged out');
      assert.deepEqual(
        (await sessionsOf(token, 'frank')).sessionIds.filter((s) => s !== '0'),
        [],
        'its session ended',
      );
    });

    it('allowed_groups no longer admitting the user: the cookie is refused by B (Basic gets 403)', async () => {
      assert.equal((await ocs(procs.a(), 'POST', '/cloud/groups', ADMIN, { groupid: 'talkers' })).status, 200);
      for (const u of ['alice', 'erin']) assert.equal((await ocs(procs.a(), 'POST', `/cloud/users/${u}/groups`, ADMIN, { groupid: 'talkers' })).status, 200);
      assert.equal((await ocs(procs.a(), 'POST', `${CONFIG}/allowed_groups`, ADMIN, { value: '["talkers"]' })).status, 200);
      try {
        const token = await roomWith('erin');
        const erin = await join(procs.a(), token, basic('erin', TWO_PROCESS_PASSWORD));
        await eventually('allowed', async () => (await post(procs.b(), token, erin.cookie, 'allowed')).status === 201);
        assert.equal((await ocs(procs.a(), 'DELETE', '/cloud/users/erin/groups', ADMIN, { groupid: 'talkers' })).status, 200);
        assert.equal((await ocs(procs.a(), 'GET', `${V4}/room`, basic('erin', TWO_PROCESS_PASSWORD))).status, 403);
        await refused(dialect, procs.b(), token, erin.cookie, 'not in allowed_groups');
      } finally {
        await ocs(procs.a(), 'DELETE', `${CONFIG}/allowed_groups`, ADMIN);
      }
    });
  });
}
