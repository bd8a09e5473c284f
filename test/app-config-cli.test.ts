/**
 * `parley config:app:get|set|delete|list` (docs/operators.md "App configuration from the command
 * line") against the database of a running server: a change made by the command is what the
 * server's API and capabilities show on the next request. Refusals print `error: ...`, exit 1 and
 * change nothing; secrets stay masked. A few runs are real processes
 * (`node --import tsx src/main.ts`); the rest run the same command tree in this process (runCli),
 * which opens its own database connection just the same.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SENSITIVE_MASK } from '../src/app-config/registry.js';
import { expectRefusal, runCli, spawnCli } from './helpers/cli.js';
import { admin, as, dialects } from './helpers/parley.js';
import { useParley } from './helpers/fixtures.js';

const API = '/apps/provisioning_api/api/v1/config/apps/spreed';

for (const dialect of dialects()) {
  describe(`app config CLI [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice'] });
    const parley = (...args: string[]) => runCli(t.p.env, args);
    const spawned = (...args: string[]) => spawnCli(t.p.env, args);
    const apiValue = async (key: string) => (await t.call('GET', `${API}/${key}`, { as: admin })).data.data;

    it('config:app:set (a real process) validates, stores, and the server shows it at once', async () => {
      const r = await spawned('config:app:set', 'spreed', 'start_calls', '--value=3');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), "Config value 'start_calls' for app 'spreed' is now set to '3'");
      assert.equal(await apiValue('start_calls'), '3');
      const caps = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      assert.equal(caps.data.capabilities.spreed.config.call.enabled, false);
    });

    it('config:app:set refusals (a real process for the wrong type) exit 1 and store nothing', async () => {
      expectRefusal(await spawned('config:app:set', 'spreed', 'start_calls', '--value=abc'), /start_calls must be a whole number/);
      expectRefusal(await parley('config:app:set', 'spreed', 'start_calls', '--value=9'), /at most 3/);
      expectRefusal(await parley('config:app:set', 'spreed', 'allowed_groups', '--value=["nobody"]'), /unknown group "nobody"/);
      expectRefusal(await parley('config:app:set', 'spreed', 'no_such_key', '--value=1'), /Unknown app config key/);
      expectRefusal(await parley('config:app:set', 'files', 'start_calls', '--value=1'), /Invalid app id given/);
      expectRefusal(await parley('config:app:set', 'spreed', 'start_calls'), /--value is required/);
      expectRefusal(await parley('config:app:set', 'spreed', 'max_call_duration', '--value=60', '--update-only'), /not updated, as it has not been set before/);
      assert.equal(await apiValue('start_calls'), '3');
      assert.equal(await apiValue('max_call_duration'), '0');
      const keys = (await t.call('GET', API, { as: admin })).data.data as string[];
      // The signaling secrets are generated and stored at first start (signaling-secrets.ts).
      const generated = ['signaling_ticket_secret', 'signaling_token_privkey_es256', 'signaling_token_pubkey_es256'];
      assert.deepEqual(
        keys.filter((k) => !generated.includes(k)),
        ['start_calls'],
      );
    });

    it('config:app:get prints the stored value, the default, or --default-value; --output=json quotes it', async () => {
      const r = await parley('config:app:get', 'spreed', 'start_calls');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '3\n');
      assert.equal((await parley('config:app:get', 'spreed', 'max_gif_size')).stdout, '3145728\n');
      assert.equal((await parley('config:app:get', 'spreed', 'sip_bridge_dialout_number', '--default-value=+49')).stdout, '+49\n');
      assert.equal((await parley('config:app:get', 'spreed', 'start_calls', '--output=json')).stdout, '"3"\n');
      expectRefusal(await parley('config:app:get', 'spreed', 'no_such_key'), /Unknown app config key/);
      expectRefusal(await parley('config:app:get', 'core', 'start_calls'), /Invalid app id given/);
      expectRefusal(await parley('config:app:get', 'spreed', 'start_calls', '--output=yaml'), /--output must be one of/);
    });

    it('secrets are stored but printed masked by set, get and list', async () => {
      const set = await parley('config:app:set', 'spreed', 'sip_bridge_shared_secret', '--value=cli-secret-value');
      assert.equal(set.code, 0, set.stderr);
      assert.ok(!set.stdout.includes('cli-secret-value'));
      assert.match(set.stdout, /now set to '\*\*\*REMOVED SENSITIVE VALUE\*\*\*'/);
      const get = await parley('config:app:get', 'spreed', 'sip_bridge_shared_secret');
      assert.equal(get.stdout, `${SENSITIVE_MASK}\n`);
      const list = await parley('config:app:list');
      assert.ok(!list.stdout.includes('cli-secret-value'));
      // Stored for real: SIP counts as configured once the dial-in info is set too.
      await parley('config:app:set', 'spreed', 'sip_bridge_dialin_info', '--value=Dial +49 30 1234');
      const caps = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      assert.equal(caps.data.capabilities.spreed.config.call['sip-enabled'], true);
    });

    it('config:app:list prints occ config:list shapes (json_pretty by default, json, plain)', async () => {
      const pretty = await parley('config:app:list');
      assert.equal(pretty.code, 0, pretty.stderr);
      const doc = JSON.parse(pretty.stdout);
      assert.deepEqual(Object.keys(doc), ['apps']);
      assert.equal(doc.apps.spreed.start_calls, '3');
      assert.equal(doc.apps.spreed.sip_bridge_shared_secret, SENSITIVE_MASK);
      assert.ok(!('max_gif_size' in doc.apps.spreed), 'only stored values without --defaults');
      assert.match(pretty.stdout, /^\{\n {4}"apps": \{\n {8}"spreed": \{/);

      const json = await parley('config:app:list', 'spreed', '--output=json');
      assert.equal(json.stdout.trim().split('\n').length, 1);
      assert.deepEqual(JSON.parse(json.stdout), doc);

      const plain = await parley('config:app:list', 'spreed', '--output=plain');
      assert.match(plain.stdout, /^ {2}- apps:\n {4}- spreed:\n/);
      assert.match(plain.stdout, /^ {6}- start_calls: 3$/m);

      const withDefaults = JSON.parse((await parley('config:app:list', '--defaults')).stdout);
      assert.equal(withDefaults.apps.spreed.max_gif_size, '3145728');
      expectRefusal(await parley('config:app:list', 'files'), /Invalid app id given/);
    });

    it('config:app:delete (a real process) removes the value; --error-if-not-exists fails on an unset key', async () => {
      const r = await spawned('config:app:delete', 'spreed', 'start_calls');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), "Config value 'start_calls' of app 'spreed' deleted");
      assert.equal(await apiValue('start_calls'), '0');
      const caps = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      assert.equal(caps.data.capabilities.spreed.config.call.enabled, true);
      expectRefusal(await parley('config:app:delete', 'spreed', 'start_calls', '--error-if-not-exists'), /could not be deleted because it did not exist/);
      expectRefusal(await parley('config:app:delete', 'spreed', 'no_such_key'), /Unknown app config key/);
      assert.equal((await parley('config:app:delete', 'spreed', 'start_calls')).code, 0, 'deleting an unset key is fine');
    });
  });
}
