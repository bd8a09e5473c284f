/**
 * Federation discovery and trust (docs/federation.md "Discovery", "Trust"): the OCM discovery
 * document at /ocm-provider/ and /.well-known/ocm follows `federation_enabled`; the trusted
 * servers list is kept by `parley federation:trusted-servers:*`; requests to other servers go
 * only to https and public addresses unless FEDERATION_ALLOW_INSECURE (the server without the
 * flag refuses to reach its loopback peer, the one with it finds the peer's OCM end point).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dialects, startParley, type Parley } from './helpers/parley.js';
import { runCli } from './helpers/cli.js';
import { RemoteUnreachable } from '../src/services/federation/remote-client.js';

for (const dialect of dialects()) {
  describe(`federation discovery and trust [${dialect}]`, () => {
    let strict: Parley;
    let insecure: Parley;
    before(async () => {
      strict = await startParley(dialect);
      insecure = await startParley(dialect, { env: { FEDERATION_ALLOW_INSECURE: 'true' } });
    });
    after(async () => {
      await strict?.close();
      await insecure?.close();
    });

    const get = async (p: Parley, path: string) => {
      const res = await fetch(p.url + path);
      return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
    };

    it('announces talk-room while federation is enabled, nothing while it is off', async () => {
      for (const path of ['/ocm-provider/', '/ocm-provider', '/.well-known/ocm']) {
        const off = await get(strict, path);
        assert.equal(off.status, 200);
        assert.match(off.type ?? '', /^application\/json/);
        assert.equal(off.body.enabled, false);
        assert.deepEqual(off.body.resourceTypes, []);
      }
      await strict.services.appConfig.set('federation_enabled', 'yes');
      const on = await get(strict, '/.well-known/ocm');
      assert.equal(on.body.enabled, true);
      assert.equal(on.body.endPoint, `${strict.url}/ocm`);
      assert.deepEqual(on.body.resourceTypes, [{ name: 'talk-room', shareTypes: ['user'], protocols: { 'talk-v1': '/ocs/v2.php/apps/spreed/api/' } }]);
    });

    it('keeps the trusted servers list through the CLI', async () => {
      const cli = (args: string[]) => runCli(strict.env, args);
      let r = await cli(['federation:trusted-servers:add', 'https://Cloud.Example.org/']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /Added cloud\.example\.org\./);
      r = await cli(['federation:trusted-servers:add', 'cloud.example.org']);
      assert.match(r.stdout, /trusted already/);
      await cli(['federation:trusted-servers:add', '127.0.0.1:8080']);
      r = await cli(['federation:trusted-servers:list', '--output=json']);
      assert.deepEqual(JSON.parse(r.stdout), ['127.0.0.1:8080', 'cloud.example.org']);
      assert.equal(await strict.services.federation.trust.isTrusted('http://127.0.0.1:8080'), true);
      assert.equal(await strict.services.federation.trust.isTrusted('other.example.org'), false);
      r = await cli(['federation:trusted-servers:remove', 'cloud.example.org']);
      assert.equal(r.code, 0, r.stderr);
      r = await cli(['federation:trusted-servers:remove', 'cloud.example.org']);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /not a trusted server/);
      r = await cli(['federation:trusted-servers:add', 'not a server']);
      assert.equal(r.code, 1);
      assert.deepEqual(await strict.services.federation.trust.list(), ['127.0.0.1:8080']);
    });

    it('reaches loopback and plain http only with FEDERATION_ALLOW_INSECURE', async () => {
      await strict.services.appConfig.set('federation_enabled', 'yes');
      await insecure.services.appConfig.set('federation_enabled', 'yes');
      const peerOfStrict = insecure.url.replace('http://', '');
      for (const remote of [`http://${peerOfStrict}`, peerOfStrict, 'localhost', '169.254.169.254', '[::1]:8080']) {
        await assert.rejects(
          strict.services.federation.client.ocmEndPoint(remote),
          (e: unknown) => e instanceof RemoteUnreachable && e.reason === 'refused',
          remote,
        );
      }
      const endPoint = await insecure.services.federation.client.ocmEndPoint(`http://${strict.url.replace('http://', '')}`);
      assert.equal(endPoint, `${strict.url}/ocm`);
    });

    it('a server that does not offer Talk rooms is not a federation peer', async () => {
      await strict.services.appConfig.set('federation_enabled', 'no');
      const fresh = await startParley(dialect, { env: { FEDERATION_ALLOW_INSECURE: 'true' } });
      try {
        await assert.rejects(
          fresh.services.federation.client.ocmEndPoint(strict.url),
          (e: unknown) => e instanceof RemoteUnreachable && e.reason === 'discovery',
        );
      } finally {
        await fresh.close();
      }
    });
  });
}
