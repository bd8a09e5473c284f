/** Health, the hello-world baseline for benchmarks, and capabilities. */
import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import type { Services } from '../../services/index.js';
import { PRODUCT_NAME, SERVER_VERSION, SERVER_VERSION_FULL } from '../../domain/version.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';

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
    summary: 'Server capabilities (Nextcloud shape, spreed for Talk)',
    handler: async ({ ctx }) => {
      const doc = await services.capabilities.document(ctx);
      const etag = createHash('md5').update(JSON.stringify(doc)).digest('hex');
      return new OcsReply(doc, 200, { ETag: `"${etag}"` });
    },
  });
}
