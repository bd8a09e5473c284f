/** Health, the hello-world baseline for benchmarks, and capabilities. */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { createHash } from 'node:crypto';
import type { Services } from '../../services/index.js';
import { PRODUCT_NAME, SERVER_VERSION, SERVER_VERSION_FULL } from '../../domain/version.js';
import { BoundedMap } from '../../domain/bounded-map.js';
import { RenderedCache } from '../../cache/rendered-cache.js';
import { capabilitiesTopics } from '../../cache/answer-topics.js';
import { renderOcs } from '../ocs/envelope.js';
import { RawReply, ocsRoute } from '../ocs/route.js';

export async function coreRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const status = JSON.stringify({
    installed: true,
    maintenance: false,
    needsDbUpgrade: false,
    version: SERVER_VERSION_FULL,
    versionstring: SERVER_VERSION.string,
    edition: '',
    productname: PRODUCT_NAME,
    extendedSupport: false,
  });
  // Health checks: no database access, so it stays cheap under load.
  app.get('/status.php', async (_req, reply) => reply.type('application/json; charset=utf-8').send(status));

  // Benchmark baseline: the cheapest possible route in the same server.
  app.get('/hello', async (_req, reply) => reply.type('application/json; charset=utf-8').send('{"hello":"world"}'));

  // Rendered capabilities bodies by (document key, version, format): the key names every input
  // of the document (config generation, caller's preferences and group rules), so a cached body
  // is exact; clients poll this route, so it skips re-serialising and re-hashing (ETag) the same
  // document. Bodies are kept as bytes so nothing is re-encoded per request.
  const rendered = new BoundedMap<string, { body: Buffer; contentType: string; etag: string }>(1000);
  // In front of that, the caller's answer while nothing it depends on changed (SQLite's change
  // stamp or change feed, see RenderedCache): the document depends only on stored state and
  // the caller, so this skips re-deriving its inputs and key on every poll. Nothing in it
  // expires by itself.
  const answers = new RenderedCache(services.db, services.settings.verifyKeptRecords);

  ocsRoute(app, services, {
    method: 'GET',
    path: '/cloud/capabilities',
    auth: 'public',
    params: Type.Object({}),
    response: Type.Object({
      version: Type.Object({
        major: Type.Integer(),
        minor: Type.Integer(),
        micro: Type.Integer(),
        string: Type.String(),
        edition: Type.String(),
        extendedSupport: Type.Boolean(),
      }),
      capabilities: Type.Record(Type.String(), Type.Unknown(), {
        description:
          'core, user_status, and spreed (docs/reference/capabilities-and-config.md#the-capabilities-document) unless allowed_groups excludes the caller',
      }),
    }),
    summary: 'Server capabilities (Nextcloud shape, spreed for Talk)',
    handler: async ({ ctx, version, format }) => {
      const answer = await answers.through(`${version}:${format}:${ctx.userId ?? ''}`, async () => {
        const view = await services.capabilities.view(ctx);
        const cacheKey = `${version}${format}${view.key}`;
        let hit = rendered.get(cacheKey);
        if (hit === undefined) {
          // Nextcloud's ETag: md5 of the JSON of the data (docs/reference/capabilities-and-config.md#the-capabilities-document).
          const etag = `"${createHash('md5').update(JSON.stringify(view.document)).digest('hex')}"`;
          const r = renderOcs(version, format, 200, view.document);
          hit = { body: Buffer.from(r.body), contentType: r.contentType, etag };
          rendered.set(cacheKey, hit);
        }
        const topics = capabilitiesTopics(ctx.userId);
        return { rendered: { body: hit.body, contentType: hit.contentType, httpStatus: 200 }, until: Infinity, topics, headers: { ETag: hit.etag } };
      });
      return new RawReply(answer.body, answer.contentType, 200, answer.headers);
    },
  });
}
