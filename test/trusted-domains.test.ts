/**
 * Trusted domains (docs/security.md): a request naming a Host the server was not set up for
 * (neither the configured address's host, a TRUSTED_DOMAINS entry nor a loopback name) is
 * answered 400 before any work, with Nextcloud's JSON on /status.php, an OCS error on OCS and a
 * page elsewhere; X-Forwarded-Host counts only from a trusted proxy. Every URL handed out (login
 * flows v2 and v1, notification links) comes from the configured address, whatever Host was
 * named, and the v1 `nc://` redirect urlencodes user and password as Nextcloud does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { basic, createUser, dialects, passwordOf, startParley, type Parley } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';
import { trustedDomains } from '../src/domain/trusted-domains.js';
import { ncLoginRedirect } from '../src/http/routes/login-flows.js';
import { loadSettings } from '../src/settings.js';

interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** A request with any Host header (fetch always sends the URL's own). */
function send(p: Parley, method: string, path: string, host: string, headers: Record<string, string> = {}, body?: string): Promise<Res> {
  const url = new URL(p.url);
  return new Promise((resolve, reject) => {
    const r = http.request({ host: url.hostname, port: url.port, method, path, headers: { Host: host, ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    r.on('error', reject);
    r.end(body);
  });
}

const form = (fields: Record<string, string>) => ({ 'Content-Type': 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() });

describe('trusted domains: the rule', () => {
  it('loopback names, the configured host, and TRUSTED_DOMAINS entries with wildcards and ports', () => {
    const rule = trustedDomains('https://talk.example.org', ['*.example.net', 'other.example:8443']);
    for (const ok of [
      'talk.example.org',
      'TALK.example.org:443',
      'localhost:1234',
      '127.0.0.1',
      '[::1]:8080',
      'a.example.net',
      'x.y.example.net:99',
      'other.example:8443',
    ]) {
      assert.ok(rule.allows(ok), ok);
    }
    for (const bad of [
      'evil.example',
      'evil.example&user:admin',
      'talk.example.org.evil',
      'example.net',
      'other.example',
      'other.example:9000',
      '-x.example.net',
      'a..example.net',
      '127.0.0.2',
    ]) {
      assert.ok(!rule.allows(bad), bad);
    }
  });

  it('settings: TRUSTED_DOMAINS is checked, the address without BASE_URL is the one HOST and PORT name', () => {
    assert.deepEqual(loadSettings({ TRUSTED_DOMAINS: ' chat.example.org, *.example.net ,[2001:db8::1]:8080' }).trustedDomains, [
      'chat.example.org',
      '*.example.net',
      '[2001:db8::1]:8080',
    ]);
    assert.throws(() => loadSettings({ TRUSTED_DOMAINS: 'http://chat.example.org' }), /TRUSTED_DOMAINS/);
    assert.throws(() => loadSettings({ BASE_URL: 'https://chat.example.org/?x=1' }), /BASE_URL/);
    assert.equal(loadSettings({ HOST: '127.0.0.1', PORT: '18590' }).baseUrl, 'http://127.0.0.1:18590');
    assert.equal(loadSettings({ PORT: '18590' }).baseUrl, 'http://localhost:18590');
    assert.equal(loadSettings({ HOST: '::1', PORT: '18590' }).baseUrl, 'http://[::1]:18590');
  });

  it('the v1 redirect urlencodes user and password as PHP does, and the server cannot inject fields', () => {
    assert.equal(
      ncLoginRedirect('https://talk.example.org', "o'brien x", 'a+b~c'),
      'nc://login/server:https://talk.example.org&user:o%27brien+x&password:a%2Bb%7Ec',
    );
    assert.equal(ncLoginRedirect('https://x.example/a&user:admin', 'u', 'p'), 'nc://login/server:https://x.example/a%26user:admin&user:u&password:p');
  });
});

for (const dialect of dialects()) {
  describe(`trusted domains without BASE_URL [${dialect}]`, () => {
    let p: Parley;
    let own: string;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      own = new URL(p.url).host;
      await createUser(p, "o'brien x", { displayName: 'OB' });
    });
    after(async () => p?.close());

    it('an untrusted Host is 400: a page, an OCS error, Nextcloud status JSON; nothing handed out', async () => {
      for (const host of ['evil.example', 'evil.example&user:admin', `evil.example:${new URL(p.url).port}`]) {
        const v2 = await send(p, 'POST', '/index.php/login/v2', host);
        assert.equal(v2.status, 400, host);
        assert.match(String(v2.headers['content-type']), /text\/html/);
        assert.match(v2.text, /untrusted domain/);
        assert.match(v2.text, /TRUSTED_DOMAINS/);
        assert.doesNotMatch(v2.text, /login\/v2\/flow/);
      }
      const ocs = await send(p, 'GET', '/ocs/v2.php/cloud/capabilities?format=json', 'evil.example', { 'OCS-APIRequest': 'true' });
      assert.equal(ocs.status, 400);
      assert.equal(JSON.parse(ocs.text).ocs.data.error, 'host');
      const status = await send(p, 'GET', '/status.php', 'evil.example');
      assert.equal(status.status, 400);
      assert.deepEqual(JSON.parse(status.text), { error: 'Trusted domain error.', code: 15 });
      const page = await send(p, 'GET', '/index.php/avatar/admin/64', '<b>evil</b>.example');
      assert.equal(page.status, 400);
      assert.doesNotMatch(page.text, /<b>evil/, 'the Host is escaped');
    });

    it('loopback names are served, and the URLs handed out are the configured address, not the Host', async () => {
      for (const host of [own, `localhost:${new URL(p.url).port}`, 'localhost:1', '[::1]:9']) {
        const r = await send(p, 'POST', '/index.php/login/v2', host);
        assert.equal(r.status, 200, host);
        const j = JSON.parse(r.text);
        assert.equal(j.poll.endpoint, `${p.url}/index.php/login/v2/poll`, host);
        assert.ok(j.login.startsWith(`${p.url}/index.php/login/v2/flow/`), host);
      }
      assert.equal((await send(p, 'GET', '/status.php', 'localhost')).status, 200);
    });

    it('v1: the nc:// redirect names the configured server and urlencodes the user', async () => {
      const host = 'localhost:1';
      const start = await send(p, 'GET', '/index.php/login/flow', host, { 'OCS-APIRequest': 'true' });
      assert.equal(start.status, 303);
      const cookie = String(start.headers['set-cookie']).split(';')[0];
      const pageRes = await send(p, 'GET', '/index.php/login/flow/grant', host, { Cookie: cookie });
      const state = /name="stateToken" value="([A-Za-z0-9]+)"/.exec(pageRes.text)![1];
      const f1 = form({ stateToken: state, user: "o'brien x", password: passwordOf("o'brien x") });
      const login = await send(p, 'POST', '/index.php/login/flow/login', host, { Cookie: cookie, 'Content-Type': f1['Content-Type'] }, f1.body);
      assert.equal(login.status, 303, login.text);
      const f2 = form({ stateToken: state });
      const done = await send(p, 'POST', '/index.php/login/flow/grant', host, { Cookie: cookie, 'Content-Type': f2['Content-Type'] }, f2.body);
      assert.equal(done.status, 303, done.text);
      const m = /^nc:\/\/login\/server:(.+)&user:(.+)&password:([A-Za-z0-9]{72})$/.exec(String(done.headers.location));
      assert.ok(m, String(done.headers.location));
      assert.equal(m[1], p.url);
      assert.equal(m[2], 'o%27brien+x');
      const me = await fetch(`${p.url}/ocs/v2.php/cloud/user?format=json`, { headers: { 'OCS-APIRequest': 'true', Authorization: basic("o'brien x", m[3]) } });
      assert.equal(me.status, 200);
    });
  });

  describe(`trusted domains with BASE_URL, TRUSTED_DOMAINS and a trusted proxy [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, {
        env: { ...NO_THROTTLE, BASE_URL: 'https://talk.example.org/', TRUSTED_DOMAINS: '*.example.net', TRUSTED_PROXIES: '127.0.0.1' },
      });
    });
    after(async () => p?.close());

    it("BASE_URL's host and the listed domains are served; the URLs are BASE_URL's", async () => {
      for (const host of ['talk.example.org', 'chat.example.net:8080', '127.0.0.1']) {
        const r = await send(p, 'POST', '/index.php/login/v2', host);
        assert.equal(r.status, 200, host);
        assert.equal(JSON.parse(r.text).poll.endpoint, 'https://talk.example.org/index.php/login/v2/poll');
      }
      assert.equal((await send(p, 'POST', '/index.php/login/v2', 'evil.example')).status, 400);
    });

    it("a trusted proxy's X-Forwarded-Host is checked in place of its Host", async () => {
      const fwd = (h: string) => send(p, 'POST', '/index.php/login/v2', '127.0.0.1', { 'X-Forwarded-Host': h, 'X-Forwarded-Proto': 'https' });
      assert.equal((await fwd('evil.example')).status, 400);
      const r = await fwd('a.example.net');
      assert.equal(r.status, 200);
      assert.equal(JSON.parse(r.text).poll.endpoint, 'https://talk.example.org/index.php/login/v2/poll', 'never the forwarded host');
    });
  });

  describe(`X-Forwarded-Host from anybody else is ignored [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
    });
    after(async () => p?.close());

    it('the connection is no proxy: its Host counts, the forwarded one neither refuses nor is handed out', async () => {
      const r = await send(p, 'POST', '/index.php/login/v2', new URL(p.url).host, { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' });
      assert.equal(r.status, 200);
      assert.equal(JSON.parse(r.text).poll.endpoint, `${p.url}/index.php/login/v2/poll`);
    });
  });
}
