/** User status (docs/api.md "Participants and sessions"): Nextcloud's user_status endpoints for the caller. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useParley } from './helpers/fixtures.js';
import { as, dialects } from './helpers/parley.js';

const BASE = '/apps/user_status/api/v1/user_status';

for (const dialect of dialects()) {
  describe(`user status [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob', 'carol', 'dave'] });
    const call = t.call;

    it('GET without a status is 404; anonymous is 401', async () => {
      const r = await call('GET', BASE, { as: as('alice') });
      assert.equal(r.status, 404);
      assert.equal(r.data.error, 'status');
      const anon = await call('GET', BASE);
      assert.equal(anon.status, 401);
    });

    it('PUT status sets a user-defined status and GET returns the Nextcloud record', async () => {
      const r = await call('PUT', `${BASE}/status`, { as: as('alice'), body: { statusType: 'dnd' } });
      assert.equal(r.status, 200);
      assert.deepEqual(r.data, {
        userId: 'alice',
        message: null,
        messageId: null,
        messageIsPredefined: false,
        icon: null,
        clearAt: null,
        status: 'dnd',
        statusIsUserDefined: true,
      });
      const g = await call('GET', BASE, { as: as('alice') });
      assert.equal(g.data.status, 'dnd');
    });

    it('every status type is accepted; unknown, missing and wrong-type values are 400 and change nothing', async () => {
      for (const t of ['online', 'away', 'invisible', 'offline', 'dnd']) {
        const r = await call('PUT', `${BASE}/status`, { as: as('bob'), form: { statusType: t } });
        assert.equal(r.status, 200, t);
        assert.equal(r.data.status, t);
      }
      for (const body of [{ statusType: 'busy-ish' }, {}, { statusType: ['online'] }, { statusType: '' }]) {
        const r = await call('PUT', `${BASE}/status`, { as: as('bob'), body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.data.error, 'statusType');
      }
      const g = await call('GET', BASE, { as: as('bob') });
      assert.equal(g.data.status, 'dnd');
    });

    it('custom message: set with icon and clearAt, then clear', async () => {
      const clearAt = Math.floor(Date.now() / 1000) + 3600;
      const r = await call('PUT', `${BASE}/message/custom`, { as: as('carol'), body: { statusIcon: '🏖️', message: 'On holiday', clearAt } });
      assert.equal(r.status, 200);
      assert.equal(r.data.icon, '🏖️');
      assert.equal(r.data.message, 'On holiday');
      assert.equal(r.data.clearAt, clearAt);
      assert.equal(r.data.status, 'offline', 'a message alone does not make the user online');
      const d = await call('DELETE', `${BASE}/message`, { as: as('carol') });
      assert.equal(d.status, 200);
      assert.deepEqual(d.data, []);
      const g = await call('GET', BASE, { as: as('carol') });
      assert.equal(g.data.message, null);
      assert.equal(g.data.icon, null);
      assert.equal(g.data.clearAt, null);
    });

    it('custom message bad input is 400 with the field as reason and changes nothing', async () => {
      await call('PUT', `${BASE}/message/custom`, { as: as('dave'), body: { statusIcon: '🙂', message: 'before' } });
      const past = Math.floor(Date.now() / 1000) - 10;
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ statusIcon: 'ab', message: 'x' }, 'statusIcon'],
        [{ statusIcon: '🙂🙂', message: 'x' }, 'statusIcon'],
        [{ message: 'x'.repeat(81) }, 'message'],
        [{ message: 'x', clearAt: past }, 'clearAt'],
        [{ message: 'x', clearAt: 'soon' }, 'clearAt'],
        [{ message: { a: 1 } }, 'message'],
      ];
      for (const [body, reason] of cases) {
        const r = await call('PUT', `${BASE}/message/custom`, { as: as('dave'), body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.data.error, reason, JSON.stringify(body));
      }
      const g = await call('GET', BASE, { as: as('dave') });
      assert.equal(g.data.message, 'before');
      assert.equal(g.data.icon, '🙂');
    });

    it('an expired message reads as cleared', async () => {
      const soon = Math.floor(Date.now() / 1000) + 1;
      await call('PUT', `${BASE}/message/custom`, { as: as('alice'), body: { message: 'brb', clearAt: soon } });
      await new Promise((r) => setTimeout(r, 2100));
      const g = await call('GET', BASE, { as: as('alice') });
      assert.equal(g.data.message, null);
      assert.equal(g.data.status, 'dnd');
    });

    it('others see invisible as offline; many statuses load in one query', async () => {
      await call('PUT', `${BASE}/status`, { as: as('carol'), body: { statusType: 'invisible' } });
      const before = t.services.db.stats.queries;
      const map = await t.services.userStatus.forUsers(['alice', 'bob', 'carol', 'dave', 'nobody']);
      assert.equal(t.services.db.stats.queries - before, 1);
      assert.equal(map.get('carol')?.status, 'offline');
      assert.equal(map.get('bob')?.status, 'dnd');
      assert.equal(map.has('nobody'), false);
    });

    it('automatic online does not override a chosen away/dnd/invisible status', async () => {
      await t.services.userStatus.markOnline('bob');
      assert.equal((await call('GET', BASE, { as: as('bob') })).data.status, 'dnd');
      await call('PUT', `${BASE}/status`, { as: as('bob'), body: { statusType: 'offline' } });
      await t.services.userStatus.markOnline('bob');
      const g = await call('GET', BASE, { as: as('bob') });
      assert.equal(g.data.status, 'online');
      assert.equal(g.data.statusIsUserDefined, false);
    });

    it('capabilities carry the user_status block', async () => {
      const r = await call('GET', '/cloud/capabilities', { as: as('alice') });
      assert.equal(r.data.capabilities.user_status.enabled, true);
      assert.equal(r.data.capabilities.user_status.supports_emoji, true);
    });

    it('deleting the user deletes the status', async () => {
      const set = await call('PUT', `${BASE}/message/custom`, { as: as('dave'), body: { statusIcon: '🙂', message: 'leaving' } });
      assert.equal(set.status, 200, set.text);
      assert.equal((await t.services.userStatus.forUsers(['dave'])).size, 1, 'dave has a status before');
      await t.services.directory.deleteUser('dave');
      assert.equal((await t.services.userStatus.forUsers(['dave'])).size, 0);
    });
  });
}
