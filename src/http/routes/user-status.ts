/**
 * Nextcloud's user-status endpoints for the caller (docs/api.md "Participants and sessions"), under
 * /apps/user_status/api/v1. Shapes follow Nextcloud's UserStatusController.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { ocsRoute } from '../ocs/route.js';
import { EmptyList, OwnStatusSchema } from './participant-schemas.js';

const BASE = '/apps/user_status/api/v1/user_status';

export async function userStatusRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const status = services.userStatus;

  ocsRoute(app, services, {
    method: 'GET',
    path: BASE,
    auth: 'user',
    summary: "The caller's status (404 when never set)",
    params: Type.Object({}),
    response: OwnStatusSchema,
    handler: async ({ ctx }) => status.own(ctx.userId!),
  });

  ocsRoute(app, services, {
    method: 'PUT',
    path: `${BASE}/status`,
    auth: 'user',
    summary: 'Set the status type: online, away, dnd, invisible or offline',
    response: OwnStatusSchema,
    params: Type.Object({ statusType: Type.String({ maxLength: 32 }) }, { required: ['statusType'] }),
    handler: async ({ ctx, params }) => status.setStatus(ctx.userId!, params.statusType),
  });

  ocsRoute(app, services, {
    method: 'PUT',
    path: `${BASE}/message/custom`,
    auth: 'user',
    summary: 'Set a custom status message (icon, message, clearAt)',
    response: OwnStatusSchema,
    params: Type.Object({
      statusIcon: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
      message: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
      clearAt: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    }),
    handler: async ({ ctx, params }) => status.setCustomMessage(ctx.userId!, params.statusIcon ?? null, params.message ?? null, params.clearAt ?? null),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${BASE}/message`,
    auth: 'user',
    summary: 'Clear the custom status message',
    params: Type.Object({}),
    response: EmptyList,
    handler: async ({ ctx }) => {
      await status.clearMessage(ctx.userId!);
      return [];
    },
  });
}
