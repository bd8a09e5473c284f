/** GET /openapi.json: the API document, generated once from the registered route definitions. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services/index.js';
import { buildOpenApi } from '../openapi.js';

export async function openApiRoutes(app: FastifyInstance, services: Services): Promise<void> {
  let doc: string | undefined;
  app.get('/openapi.json', async (_request, reply) => {
    // Built on first request: by then every route module has registered its routes.
    doc ??= JSON.stringify(buildOpenApi(app.ocsRoutes, services.settings.baseUrl));
    return reply.type('application/json; charset=utf-8').send(doc);
  });
}
