/**
 * App passwords as Nextcloud clients obtain them (Login Flow's last step and the clients'
 * "convert to app password" call): `GET /core/getapppassword`, `DELETE /core/apppassword`,
 * `POST /core/apppassword/rotate`. The clear text is returned once and never stored.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { ocsRoute } from '../ocs/route.js';
import { AppPassword } from './account-schemas.js';
import { EmptyList } from './common-schemas.js';

export async function appPasswordRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const prov = services.provisioning;

  ocsRoute(app, services, {
    method: 'GET',
    path: '/core/getapppassword',
    auth: 'user',
    params: Type.Object({}),
    response: AppPassword,
    summary: "Turn the caller's login password into a new app password (403 with an app password)",
    handler: ({ ctx, request }) => prov.createAppPassword(ctx, String(request.headers['user-agent'] ?? '')),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: '/core/apppassword',
    statuses: { 403: 'the request is not authenticated with an app password' },
    auth: 'user',
    params: Type.Object({}),
    response: EmptyList,
    summary: 'Revoke the app password used by this request (403 without one)',
    handler: async ({ ctx }) => {
      await prov.revokeAppPassword(ctx);
      return [];
    },
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: '/core/apppassword/rotate',
    statuses: { 403: 'the request is not authenticated with an app password' },
    auth: 'user',
    params: Type.Object({}),
    response: AppPassword,
    summary: 'Give the app password used by this request a new secret (403 without one)',
    handler: ({ ctx }) => prov.rotateAppPassword(ctx),
  });
}
