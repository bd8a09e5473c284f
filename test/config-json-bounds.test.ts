/**
 * Structured config values (server lists and every other JSON-typed key) are parsed within
 * bounds (docs/security.md): a 10,000-level nested value or one over 64 KiB is a clear 400
 * `{error: "value"}` and stores nothing, where it overflowed the stack (500) before — sent as
 * JSON text in a form, or as a JSON structure in a JSON body.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, dialects } from './helpers/parley.js';
import { useParley } from './helpers/fixtures.js';

const CONFIG = '/apps/provisioning_api/api/v1/config/apps/spreed';
const deep = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

for (const dialect of dialects()) {
  describe(`deep or huge structured config values are 400 [${dialect}]`, () => {
    const t = useParley(dialect);

    for (const key of ['turn_servers', 'signaling_servers', 'recording_servers']) {
      it(`${key}: 10,000 levels deep (form text or JSON body) or over 64 KiB is 400 and changes nothing`, async () => {
        const before = (await t.call('GET', `${CONFIG}/${key}`, { as: admin })).data;
        const asText = await t.call('POST', `${CONFIG}/${key}`, { as: admin, form: { value: deep(10_000) } });
        assert.equal(asText.status, 400, asText.text);
        assert.equal(asText.data.error, 'value');
        assert.match(asText.data.message, /nests too deeply/);
        const asBody = await t.call('POST', `${CONFIG}/${key}`, { as: admin, body: `{"value":${deep(10_000)}}` });
        assert.equal(asBody.status, 400, asBody.text);
        assert.equal(asBody.data.error, 'value');
        const huge = await t.call('POST', `${CONFIG}/${key}`, { as: admin, form: { value: JSON.stringify(['x'.repeat(70_000)]) } });
        assert.equal(huge.status, 400, huge.text);
        assert.match(huge.data.message, /too long/);
        assert.deepEqual((await t.call('GET', `${CONFIG}/${key}`, { as: admin })).data, before);
      });
    }

    it('a value of ordinary depth is still accepted', async () => {
      const turn = [{ schemes: 'turn', server: 'turn.example.org:3478', secret: 's3cret', protocols: 'udp' }];
      const r = await t.call('POST', `${CONFIG}/turn_servers`, { as: admin, form: { value: JSON.stringify(turn) } });
      assert.equal(r.status, 200, r.text);
    });
  });
}
