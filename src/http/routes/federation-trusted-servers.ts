/**
 * The trusted servers of federation, for administrators, in the shape of Nextcloud's federation
 * app (docs/reference/federation.md#trusted-servers; what Parley answers:
 * docs/federation.md#the-trusted-servers-api). The admin page calls it; the CLI keeps the same list.
 *   GET    /apps/federation/trusted-servers        → [{id, url}]
 *   POST   /apps/federation/trusted-servers (url)  → {id, url, message}
 *   DELETE /apps/federation/trusted-servers/{id}   → {id}
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { ocsRoute } from '../ocs/route.js';

const BASE = '/apps/federation/trusted-servers';

const TrustedServer = Type.Object({
  id: Type.Integer(),
  url: Type.String({ description: 'host[:port][/path], without the scheme' }),
});

export async function federationTrustedServerRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const trust = services.federation.trust;

  ocsRoute(app, services, {
    method: 'GET',
    path: BASE,
    auth: 'admin',
    params: Type.Object({}),
    response: Type.Array(TrustedServer),
    summary: 'List the trusted servers of federation (by name)',
    handler: () => trust.entries(),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: BASE,
    auth: 'admin',
    params: Type.Object({ url: Type.String({ maxLength: 1024, 'x-error': 'url' }) }),
    response: Type.Object({ ...TrustedServer.properties, message: Type.String() }),
    statuses: {
      400: '`url`: not a server as a cloud id names one (`host[:port][/path]`, a scheme is dropped)',
      409: '`url`: the server is listed already',
    },
    summary: 'Trust a server for federation (used while federation_only_trusted_servers is 1)',
    handler: async ({ params }) => ({ ...(await trust.addEntry(params.url)), message: 'Added to the list of trusted servers' }),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${BASE}/:id`,
    auth: 'admin',
    params: Type.Object({ id: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, 'x-error': 'id' }) }),
    response: Type.Object({ id: Type.Integer() }),
    statuses: { 404: '`id`: no trusted server has this id' },
    summary: 'Stop trusting a server',
    handler: async ({ params }) => ({ id: (await trust.removeEntry(params.id)).id }),
  });
}
