/**
 * POST/DELETE /apps/provisioning_api/api/v1/config/users/spreed/{configKey} (contract "Set a
 * per-user setting through the server API"; docs/reference/capabilities-and-config.md#user-settings): the caller's own
 * preferences, validated, shown in capabilities with the app-config fallback.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useParley } from './helpers/fixtures.js';
import { admin, as, call, dialects, type Parley } from './helpers/parley.js';

const PATH = (key: string, app = 'spreed') => `/apps/provisioning_api/api/v1/config/users/${app}/${key}`;

async function caps(p: Parley, user: string): Promise<any> {
  const r = await call(p, 'GET', '/cloud/capabilities', { as: as(user) });
  assert.equal(r.status, 200);
  return r.data.capabilities.spreed.config;
}

async function prefs(p: Parley, user: string): Promise<Record<string, string>> {
  return Object.fromEntries(await p.services.preferences.forUser(user));
}

const VALUES: Record<string, { good: string[]; read: (c: any) => unknown; map: (v: string) => unknown }> = {
  calls_start_without_media: { good: ['yes', 'no'], read: (c) => c.call['start-without-media'], map: (v) => v === 'yes' },
  blur_virtual_background: { good: ['yes', 'no'], read: (c) => c.call['blur-virtual-background'], map: (v) => v === 'yes' },
  conversations_list_style: { good: ['compact', 'two-lines'], read: (c) => c.conversations['list-style'], map: (v) => v },
  chat_style: { good: ['unified', 'split'], read: (c) => c.chat.style, map: (v) => v },
};

for (const dialect of dialects()) {
  describe(`provisioning per-user config [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob'] });

    it('401 for anonymous callers (POST and DELETE)', async () => {
      let r = await t.call('POST', PATH('chat_style'), { body: { configValue: 'unified' } });
      assert.equal(r.status, 401);
      r = await t.call('DELETE', PATH('chat_style'));
      assert.equal(r.status, 401);
    });

    for (const [key, spec] of Object.entries(VALUES)) {
      it(`${key}: each valid value is stored (200 data []) and shown in capabilities`, async () => {
        for (const value of spec.good) {
          const r = await t.call('POST', PATH(key), { as: as('alice'), body: { configValue: value } });
          assert.equal(r.status, 200);
          assert.deepEqual(r.data, []);
          assert.equal((await prefs(t.p, 'alice'))[key], value);
          assert.deepEqual(spec.read(await caps(t.p, 'alice')), spec.map(value));
        }
      });

      it(`${key}: invalid values are 400 value and change nothing`, async () => {
        const before = (await prefs(t.p, 'alice'))[key];
        for (const value of ['', 'maybe', 'YES', '1', 'x'.repeat(65)]) {
          const r = await t.call('POST', PATH(key), { as: as('alice'), body: { configValue: value } });
          assert.equal(r.status, 400, `${key}=${value}`);
          assert.ok(['value', 'configValue'].includes(r.data.error), r.data.error);
        }
        assert.equal((await prefs(t.p, 'alice'))[key], before);
      });
    }

    it('user values override the app config; DELETE falls back to it', async () => {
      await t.services.appConfig.set('chat_style', 'unified');
      await t.services.appConfig.set('conversations_list_style', 'compact');
      await t.services.appConfig.set('calls_start_without_media', 'yes');
      // bob has no preference: he sees the app config values.
      let c = await caps(t.p, 'bob');
      assert.equal(c.chat.style, 'unified');
      assert.equal(c.conversations['list-style'], 'compact');
      assert.equal(c.call['start-without-media'], true);
      assert.equal(c.call['blur-virtual-background'], false);

      for (const [key, value] of [
        ['chat_style', 'split'],
        ['conversations_list_style', 'two-lines'],
        ['calls_start_without_media', 'no'],
        ['blur_virtual_background', 'yes'],
      ]) {
        const r = await t.call('POST', PATH(key), { as: as('bob'), form: { configValue: value } });
        assert.equal(r.status, 200);
      }
      c = await caps(t.p, 'bob');
      assert.equal(c.chat.style, 'split');
      assert.equal(c.conversations['list-style'], 'two-lines');
      assert.equal(c.call['start-without-media'], false);
      assert.equal(c.call['blur-virtual-background'], true);

      for (const key of Object.keys(VALUES)) {
        const r = await t.call('DELETE', PATH(key), { as: as('bob') });
        assert.equal(r.status, 200);
        assert.deepEqual(r.data, []);
      }
      assert.deepEqual(await prefs(t.p, 'bob'), {});
      c = await caps(t.p, 'bob');
      assert.equal(c.chat.style, 'unified');
      assert.equal(c.conversations['list-style'], 'compact');
      assert.equal(c.call['start-without-media'], true);
      assert.equal(c.call['blur-virtual-background'], false);
      // DELETE of an unset preference is fine too.
      const again = await t.call('DELETE', PATH('chat_style'), { as: as('bob') });
      assert.equal(again.status, 200);
    });

    it('`value` is accepted as an alias of configValue', async () => {
      const r = await t.call('POST', PATH('chat_style'), { as: as('bob'), body: { value: 'unified' } });
      assert.equal(r.status, 200);
      assert.equal((await prefs(t.p, 'bob')).chat_style, 'unified');
    });

    it('a caller changes only their own preferences', async () => {
      const r = await t.call('POST', PATH('blur_virtual_background'), { as: admin, body: { configValue: 'yes' } });
      assert.equal(r.status, 200);
      assert.equal((await prefs(t.p, 'alice')).blur_virtual_background, 'no');
      assert.equal((await prefs(t.p, 'bob')).blur_virtual_background, undefined);
      assert.equal((await prefs(t.p, 'admin')).blur_virtual_background, 'yes');
    });

    it('unknown keys, settings/user keys, other apps, missing value → 400, nothing stored', async () => {
      const before = await prefs(t.p, 'bob');
      const cases: Array<[string, unknown, string]> = [
        [PATH('nope'), { configValue: 'yes' }, 'key'],
        [PATH('play_sounds'), { configValue: 'yes' }, 'key'],
        [PATH('attachment_folder'), { configValue: '/x' }, 'key'],
        [PATH('read_status_privacy'), { configValue: '1' }, 'key'],
        [PATH('chat_style', 'files'), { configValue: 'split' }, 'app'],
        [PATH('chat_style'), {}, 'configValue'],
        [PATH('chat_style'), { configValue: ['split'] }, 'configValue'],
        [PATH('chat_style'), { configValue: true }, 'configValue'],
        [PATH('k'.repeat(80)), { configValue: 'yes' }, 'configKey'],
      ];
      for (const [path, body, error] of cases) {
        const r = await t.call('POST', path, { as: as('bob'), body });
        assert.equal(r.status, 400, path);
        assert.equal(r.data.error, error, path);
      }
      for (const [path, error] of [
        [PATH('nope'), 'key'],
        [PATH('chat_style', 'files'), 'app'],
      ]) {
        const r = await t.call('DELETE', path, { as: as('bob') });
        assert.equal(r.status, 400);
        assert.equal(r.data.error, error);
      }
      assert.deepEqual(await prefs(t.p, 'bob'), before);
    });
  });
}
