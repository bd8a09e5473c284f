/**
 * Open Cloud Mesh (docs/reference/federation.md#discovery): the discovery document at
 * `/ocm-provider/` and `/.well-known/ocm`, announcing Talk's `talk-room` resource type while
 * federation is on. Plain JSON, not OCS, as Nextcloud answers them.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services/index.js';

export async function federationOcmRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const discovery = async (_req: unknown, reply: import('fastify').FastifyReply) => {
    const doc = await services.federation.discovery.document();
    return reply.type('application/json; charset=utf-8').header('Cache-Control', 'no-store').send(JSON.stringify(doc));
  };
  app.get('/ocm-provider/', discovery);
  app.get('/.well-known/ocm', discovery);
}
