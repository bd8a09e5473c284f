/**
 * POST /apps/spreed/api/v1/settings/sip (contract "Settings", "Authentication" 4; docs/reference/sip.md#sip-settings): admin only, all three values in one request, unknown groups dropped, hash changed.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, createUser, dialects, type Parley } from './helpers/parley.js';
import { useParley } from './helpers/fixtures.js';

const PATH = '/apps/spreed/api/v1/settings/sip';

async function stored(p: Parley) {
  const snap = await p.services.appConfig.snapshot();
  return {
    groups: snap.raw('sip_bridge_groups'),
    info: snap.raw('sip_bridge_dialin_info'),
    secret: snap.raw('sip_bridge_shared_secret'),
  };
}

for (const dialect of dialects()) {
  describe(`POST /settings/sip [${dialect}]`, () => {
    const t = useParley(dialect);
    before(async () => {
      await createUser(t.p, 'alice', { groups: ['sales'] });
      await createUser(t.p, 'bob', { groups: ['support'] });
    });

    const good = { sipGroups: ['sales', 'ghost', 'sales'], dialInInfo: 'Call +49 30 1234 and enter the ID', sharedSecret: 'bridge-secret-1' };

    it('401 anonymous, 403 non-admin; nothing stored', async () => {
      let r = await t.call('POST', PATH, { body: good });
      assert.equal(r.status, 401);
      r = await t.call('POST', PATH, { as: as('alice'), body: good });
      assert.equal(r.status, 403);
      assert.equal(r.data.error, 'admin');
      assert.deepEqual(await stored(t.p), { groups: undefined, info: undefined, secret: undefined });
    });

    it('admin: 200 data null; stores all three, drops unknown groups, bumps the generation once and changes the hash', async () => {
      const gen = await t.p.services.appConfig.snapshot().then((s) => s.generation);
      const headerHash = async () => (await t.call('GET', '/apps/spreed/api/v4/room', { as: as('alice') })).headers.get('x-service-hash');
      const headerBefore = await headerHash();
      assert.ok(headerBefore);
      const capsBefore = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      assert.equal(capsBefore.data.capabilities.spreed.config.call['sip-enabled'], false);

      const r = await t.call('POST', PATH, { as: admin, body: good });
      assert.equal(r.status, 200);
      assert.equal(r.data, null);
      assert.deepEqual(await stored(t.p), { groups: '["sales"]', info: good.dialInInfo, secret: good.sharedSecret });
      const snap = await t.p.services.appConfig.snapshot();
      assert.equal(snap.generation, gen + 1);
      // Clients see the change as a new X-Service-Hash header on GET /room.
      assert.notEqual(await headerHash(), headerBefore);

      const caps = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      const call_ = caps.data.capabilities.spreed.config.call;
      assert.equal(call_['sip-enabled'], true);
      assert.equal(call_['can-enable-sip'], true);
      const bobCaps = await t.call('GET', '/cloud/capabilities', { as: as('bob') });
      assert.equal(bobCaps.data.capabilities.spreed.config.call['can-enable-sip'], false);
      // The secret is never handed out.
      assert.ok(!caps.text.includes(good.sharedSecret));
      assert.ok(!r.text.includes(good.sharedSecret));
    });

    it('accepts form encoding with sipGroups[]', async () => {
      const form = 'sipGroups%5B%5D=support&sipGroups%5B%5D=sales&dialInInfo=info&sharedSecret=s2';
      const r = await t.call('POST', PATH, { as: admin, form });
      assert.equal(r.status, 200);
      assert.deepEqual(await stored(t.p), { groups: '["support","sales"]', info: 'info', secret: 's2' });
    });

    it('missing values default to empty, which turns SIP off', async () => {
      const r = await t.call('POST', PATH, { as: admin, body: {} });
      assert.equal(r.status, 200);
      assert.deepEqual(await stored(t.p), { groups: '[]', info: '', secret: '' });
      const caps = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      assert.equal(caps.data.capabilities.spreed.config.call['sip-enabled'], false);
    });

    it('bad input → 400 naming the field, nothing changed', async () => {
      await t.call('POST', PATH, { as: admin, body: good });
      const before = await stored(t.p);
      const gen = (await t.p.services.appConfig.snapshot()).generation;
      const cases: Array<[unknown, string]> = [
        [{ ...good, sipGroups: 'sales' }, 'sipGroups'],
        [{ ...good, sipGroups: [1, { a: 1 }] }, 'sipGroups'],
        [{ ...good, sipGroups: ['x'.repeat(256)] }, 'sipGroups'],
        [{ ...good, sipGroups: Array.from({ length: 1001 }, (_, i) => `g${i}`) }, 'sipGroups'],
        [{ ...good, dialInInfo: ['a'] }, 'dialInInfo'],
        [{ ...good, dialInInfo: 'i'.repeat(4001) }, 'dialInInfo'],
        [{ ...good, sharedSecret: { s: 1 } }, 'sharedSecret'],
        [{ ...good, sharedSecret: 's'.repeat(1025) }, 'sharedSecret'],
      ];
      for (const [body, error] of cases) {
        const r = await t.call('POST', PATH, { as: admin, body });
        assert.equal(r.status, 400, error);
        assert.equal(r.data.error, error);
      }
      assert.deepEqual(await stored(t.p), before);
      assert.equal((await t.p.services.appConfig.snapshot()).generation, gen);
    });

    it('answers under /ocs/v1.php too (v1 statuscode 100)', async () => {
      const r = await t.call('POST', PATH, { as: admin, version: 1, body: { ...good, dialInInfo: 'v1 info' } });
      assert.equal(r.status, 200);
      assert.equal(r.meta.statuscode, 100);
      assert.equal((await stored(t.p)).info, 'v1 info');
    });
  });
}
