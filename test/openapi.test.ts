/**
 * GET /openapi.json (docs/operators.md "API document"): an OpenAPI 3.1 document generated from the
 * route definitions, and the rule that every OCS route declares a schema for its request
 * (`params`) and for its response (`response`, the OCS `data` payload). New routes need both.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { OcsRouteDef } from '../src/http/ocs/route.js';
import { dialects } from './helpers/parley.js';
import { useParley } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`OpenAPI document [${dialect}]`, () => {
    const t = useParley(dialect);
    let doc: any;
    before(async () => {
      const res = await fetch(`${t.p.url}/openapi.json`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /^application\/json/);
      doc = await res.json();
    });

    const defs = () => (t.p.app as any).ocsRoutes as OcsRouteDef<any>[];

    it('is OpenAPI 3.1 and lists every OCS route with its method', () => {
      assert.equal(doc.openapi, '3.1.0');
      assert.ok(defs().length > 0);
      for (const d of defs()) {
        const path = '/ocs/v2.php' + d.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
        assert.ok(doc.paths[path]?.[d.method.toLowerCase()], `${d.method} ${path} is missing from the document`);
      }
    });

    it('describes path parameters, the OCS envelope and authentication', () => {
      const caps = doc.paths['/ocs/v2.php/cloud/capabilities'].get;
      assert.equal(caps['x-parley-auth'], 'public');
      assert.equal(caps.security, undefined);
      const env = caps.responses['200'].content['application/json'].schema;
      assert.deepEqual(env.properties.ocs.required, ['meta', 'data']);
      const key = doc.paths['/ocs/v2.php/apps/provisioning_api/api/v1/config/apps/{app}/{key}'];
      assert.ok(key, 'the app-config route is documented');
      assert.deepEqual(
        key.post.parameters.filter((x: any) => x.in === 'path').map((x: any) => x.name),
        ['app', 'key'],
      );
      assert.ok(key.post.requestBody.content['application/json'].schema.properties.value !== undefined);
      assert.deepEqual(key.post.security, [{ basic: [] }, { loginSession: [] }]);
    });

    it('every route has a request schema (params) and a response schema', () => {
      const noRequest = defs()
        .filter((d) => !d.params)
        .map((d) => `${d.method} ${d.path}`);
      const noResponse = defs()
        .filter((d) => !d.response)
        .map((d) => `${d.method} ${d.path}`);
      assert.deepEqual(
        { noRequest, noResponse },
        { noRequest: [], noResponse: [] },
        'routes without schemas (add `params` and `response` to their ocsRoute definitions):\n' +
          [...noRequest.map((r) => `  request:  ${r}`), ...noResponse.map((r) => `  response: ${r}`)].join('\n'),
      );
    });
  });
}
