/** Health, the hello-world baseline for benchmarks, and capabilities. */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { PRODUCT_NAME, SERVER_VERSION, SERVER_VERSION_FULL } from '../../domain/version.js';
import { capabilitiesTopics } from '../../cache/answer-topics.js';
import { KeptReply, ocsRoute } from '../ocs/route.js';

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
    // The document depends only on stored state and the caller: the caller's answer is kept while
    // nothing it depends on changed (the configuration and groups are `g`, the caller's
    // preferences its user topic), for anonymous callers too. Nothing in it expires by itself.
    cache: { store: 'capabilities', key: () => ['capabilities'], anonymous: true, bySession: false },
    handler: async ({ ctx }) => {
      const view = await services.capabilities.view(ctx);
      return new KeptReply(view.document, { topics: capabilitiesTopics(ctx.userId) }, { ETag: view.etag });
    },
  });
}
