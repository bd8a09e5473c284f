/**
 * X-Service-Hash / X-Nextcloud-Talk-Hash (docs/reference/capabilities-and-config.md#the-hash-header): changes, in
 * every process, on the next request after a key marked Hash = Yes changes (on PostgreSQL in
 * another process once the commit's NOTIFY has arrived: docs/architecture.md "Read cache"), and
 * never for a key
 * marked Hash = No. Two servers share one database (each with its own caches, as two processes
 * have); the user's hash is read from GET /room on both, the guest's from the service.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CONFIG_KEYS, normalizeConfigValue, type ConfigKey } from '../src/app-config/registry.js';
import { RequestContext } from '../src/services/platform/request-context.js';
import { admin, as, call, createUser, dialects, startParley, type Parley } from './helpers/parley.js';
import { seenAcross } from './helpers/eventually.js';

const API = '/apps/provisioning_api/api/v1/config/apps/spreed';

/** A valid value different from the default, for any registry key. */
function sampleValue(def: ConfigKey): string {
  const json: Record<string, string> = {
    stun_servers: '["stun.example.org:3478"]',
    turn_servers: '[{"schemes":"turn","server":"turn.example.org:3478","secret":"s3cret","protocols":"udp"}]',
    recording_servers: '{"servers":[{"server":"https://rec.example.org","verify":true}],"secret":"s3cret"}',
    signaling_servers: '{"servers":[{"server":"https://hpb.example.org","verify":true}],"secret":"s3cret"}',
    'hosted-signaling-server-account': '{"account":"x"}',
  };
  let value: string;
  switch (def.type) {
    case 'int':
      value = String(Number(def.default) === def.min ? def.min! + 1 : (def.min ?? 1));
      break;
    case 'bool': {
      const on = ['yes', '1'].includes(def.default);
      value = def.boolStyle === '10' ? (on ? '0' : '1') : on ? 'no' : 'yes';
      break;
    }
    case 'groups':
    case 'string[]':
      value = '["staff"]';
      break;
    case 'json':
      value = json[def.key];
      break;
    default:
      value = def.enum ? def.enum.find((v) => v !== def.default)! : 'sample-value';
  }
  assert.ok(value !== undefined, `no sample value for ${def.key}`);
  assert.notEqual(normalizeConfigValue(def, value), def.default, `${def.key}: the sample equals the default`);
  return value;
}

for (const dialect of dialects()) {
  describe(`X-Service-Hash [${dialect}]`, () => {
    let p: Parley;
    let q: Parley; // a second server on the same database: its own config snapshot and caches
    before(async () => {
      p = await startParley(dialect);
      q = await startParley(dialect, { env: p.env });
      await createUser(p, 'alice', { groups: ['staff'] });
      // A folder of her own, so that default_attachment_folder (Hash = No) does not move her hash.
      assert.equal(
        (await call(p, 'POST', '/apps/spreed/api/v1/settings/user', { as: as('alice'), body: { key: 'attachment_folder', value: '/Mine' } })).status,
        200,
      );
    });
    after(async () => {
      await q.app.close();
      await q.services.db.close();
      await p.close();
    });

    /** The user's hash from GET /room on a server (both header names must agree). */
    const userHash = async (server: Parley): Promise<string> => {
      const r = await call(server, 'GET', '/apps/spreed/api/v4/room', { as: as('alice') });
      assert.equal(r.status, 200);
      const h = r.headers.get('x-service-hash');
      assert.match(h ?? '', /^[0-9a-f]{40}$/);
      assert.equal(r.headers.get('x-nextcloud-talk-hash'), h);
      return h!;
    };
    const guestHash = (server: Parley) =>
      server.services.serviceHash.forContext(new RequestContext(server.services.directory, server.services.appConfig, undefined, '127.0.0.1'));
    const snapshot = async () => [await userHash(p), await userHash(q), await guestHash(p), await guestHash(q)];

    it('is the same in every process for the same settings, and differs between a user and a guest', async () => {
      const [up, uq, gp, gq] = await snapshot();
      assert.equal(up, uq);
      assert.equal(gp, gq);
      assert.notEqual(up, gp);
      const headers = await p.services.serviceHash.headers(
        new RequestContext(p.services.directory, p.services.appConfig, await p.services.directory.getUser('alice'), '127.0.0.1'),
      );
      assert.deepEqual(headers, { 'X-Service-Hash': up, 'X-Nextcloud-Talk-Hash': up });
    });

    it('changes everywhere at once for every Hash = Yes key, and back when the key is deleted', async () => {
      const hashKeys = CONFIG_KEYS.filter((d) => d.hash && !d.prefix);
      assert.ok(hashKeys.length >= 25);
      for (const def of hashKeys) {
        // Generated at first start (signaling secrets): the baseline is the key unset, as after the delete below.
        if (def.key === 'signaling_ticket_secret') await call(q, 'DELETE', `${API}/${def.key}`, { as: admin });
        const before = await snapshot();
        // Generated at start (signaling_ticket_secret): put the stored value back instead of deleting.
        const stored = (await p.services.appConfig.snapshot()).raw(def.key);
        const set = await call(p, 'POST', `${API}/${def.key}`, { as: admin, body: { value: sampleValue(def) } });
        assert.equal(set.status, 200, `${def.key}: ${set.text}`);
        const changed = await seenAcross(dialect, `${def.key}: both processes agree`, snapshot, (s) => s[0] === s[1] && s[2] === s[3]);
        for (let i = 0; i < 4; i++) assert.notEqual(changed[i], before[i], `${def.key} (hash #${i}) did not change the hash`);
        if (stored === undefined) await call(q, 'DELETE', `${API}/${def.key}`, { as: admin });
        else await p.services.appConfig.set(def.key, stored);
        await seenAcross(dialect, `${def.key}: deleting (or restoring) restores the hash`, snapshot, (s) => s.every((h, i) => h === before[i]));
      }
    });

    it('does not change for any Hash = No key', async () => {
      const before = await snapshot();
      for (const def of CONFIG_KEYS.filter((d) => !d.hash && !d.prefix)) {
        const set = await call(p, 'POST', `${API}/${def.key}`, { as: admin, body: { value: sampleValue(def) } });
        assert.equal(set.status, 200, `${def.key}: ${set.text}`);
        assert.deepEqual(await snapshot(), before, `${def.key} (Hash = No) changed the hash`);
      }
    });

    it('covers the signing key pair of the algorithm in use only', async () => {
      const before = await snapshot();
      await call(p, 'POST', `${API}/signaling_token_privkey_rs256`, { as: admin, body: { value: 'unused-key' } });
      assert.deepEqual(await snapshot(), before, 'a key of another algorithm');
      await call(p, 'POST', `${API}/signaling_token_pubkey_es256`, { as: admin, body: { value: 'public-key' } });
      const after = await snapshot();
      for (let i = 0; i < 4; i++) assert.notEqual(after[i], before[i]);
    });

    it('changes for a user when their attachment folder changes, not for guests', async () => {
      const [up, , gp] = await snapshot();
      const r = await call(q, 'POST', '/apps/spreed/api/v1/settings/user', { as: as('alice'), body: { key: 'attachment_folder', value: '/Elsewhere' } });
      assert.equal(r.status, 200);
      const [up2, uq2, gp2] = await snapshot();
      assert.notEqual(up2, up);
      assert.equal(uq2, up2);
      assert.equal(gp2, gp);
    });
  });
}
