/**
 * TRUSTED_PROXIES (README "Settings", docs/operators.md "Behind a reverse proxy"): a request
 * that comes from a trusted proxy counts for the client its X-Forwarded-For names — in the
 * brute-force throttle (so one client's wrong passwords do not throttle everybody behind the
 * proxy) and for GET /metrics — while anybody else's X-Forwarded-For is ignored (so it cannot be
 * used to dodge the throttle). Real sockets from distinct loopback addresses.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { basic, dialects, passwordOf } from './helpers/parley.js';
import { requestFrom } from './helpers/throttle.js';
import { useParley } from './helpers/fixtures.js';
import { loadSettings, SettingsError } from '../src/settings.js';

const CAP = 3;
const PROXY = '127.0.0.41';
const OTHER = '127.0.0.42';

for (const dialect of dialects()) {
  describe(`trusted proxies [${dialect}]`, () => {
    const t = useParley(dialect, {
      env: { BRUTE_FORCE_DELAY_MS: '1', BRUTE_FORCE_MAX_ATTEMPTS: String(CAP), TRUSTED_PROXIES: `${PROXY},10.9.0.0/16` },
      users: ['alice'],
    });
    const login = (from: string, password: string, forwardedFor?: string) =>
      requestFrom(t.p.url, 'GET', '/cloud/user', from, { authorization: basic('alice', password), forwardedFor });

    it("through a trusted proxy, one client's wrong passwords throttle that client only", async () => {
      for (let i = 0; i < CAP; i++) assert.equal((await login(PROXY, 'wrong-guess', '203.0.113.1')).status, 401);
      assert.equal((await login(PROXY, passwordOf('alice'), '203.0.113.1')).status, 429, 'the client that guessed is capped');
      assert.equal((await login(PROXY, passwordOf('alice'), '203.0.113.2')).status, 200, 'another client behind the proxy is not');
      // The proxy's own address (no X-Forwarded-For) is not the capped client either.
      assert.equal((await login(PROXY, passwordOf('alice'))).status, 200);
    });

    it('from an address that is not a trusted proxy, X-Forwarded-For is ignored and cannot dodge the cap', async () => {
      for (let i = 0; i < CAP; i++) assert.equal((await login(OTHER, 'wrong-guess', `198.51.100.${i + 1}`)).status, 401);
      assert.equal((await login(OTHER, passwordOf('alice'), '198.51.100.200')).status, 429);
    });

    it('GET /metrics goes by the forwarded client: refused for an outside client through the proxy', async () => {
      /** The status of GET /metrics sent from `from`, with X-Forwarded-For when given. */
      const metrics = (from: string, forwardedFor?: string) =>
        new Promise<number>((resolve, reject) => {
          const headers: Record<string, string> = forwardedFor ? { 'X-Forwarded-For': forwardedFor } : {};
          const req = http.request(`${t.p.url}/metrics`, { localAddress: from, headers }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
          req.on('error', reject);
          req.end();
        });
      assert.equal(await metrics(PROXY), 200, 'the proxy itself is loopback');
      assert.equal(await metrics(PROXY, '203.0.113.9'), 403, 'an outside client through the proxy');
      assert.equal(await metrics(PROXY, '127.0.0.1'), 200, 'a loopback client through the proxy');
      assert.equal(await metrics(OTHER, '203.0.113.9'), 200, 'an untrusted sender’s header is ignored');
    });
  });
}

describe('TRUSTED_PROXIES setting', () => {
  it('takes addresses and networks, and refuses anything else naming the variable', () => {
    assert.deepEqual(loadSettings({ TRUSTED_PROXIES: '10.0.0.1, 192.168.0.0/16,::1' }).trustedProxies, ['10.0.0.1/32', '192.168.0.0/16', '::1/128']);
    assert.deepEqual(loadSettings({}).trustedProxies, []);
    assert.throws(
      () => loadSettings({ TRUSTED_PROXIES: 'proxy.example' }),
      (e: unknown) => e instanceof SettingsError && /TRUSTED_PROXIES/.test(e.message),
    );
    assert.throws(() => loadSettings({ TRUSTED_PROXIES: '10.0.0.0/33' }), SettingsError);
  });
});
