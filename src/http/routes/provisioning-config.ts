/**
 * Per-user configuration through Nextcloud's provisioning API (contract "Set a per-user setting
 * through the server API"; docs/reference/capabilities-and-config.md#user-settings): the caller's own `spreed` preferences
 * calls_start_without_media, blur_virtual_background, conversations_list_style and chat_style.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { ocsRoute } from '../ocs/route.js';
import { EmptyList } from './common-schemas.js';

const PATH = '/apps/provisioning_api/api/v1/config/users/:appId/:configKey';

const target = {
  appId: Type.String({ maxLength: 64 }),
  configKey: Type.String({ maxLength: 64 }),
};

export async function provisioningConfigRoutes(app: FastifyInstance, services: Services): Promise<void> {
  ocsRoute(app, services, {
    method: 'POST',
    path: PATH,
    auth: 'user',
    summary: "Set one of the caller's own spreed preferences (field configValue)",
    params: Type.Object({
      ...target,
      // Nextcloud's field is `configValue`; `value` is accepted too (docs/api.md "Settings and SIP").
      configValue: Type.Optional(Type.String({ maxLength: 64 })),
      value: Type.Optional(Type.String({ maxLength: 64, 'x-error': 'configValue' })),
    }),
    response: EmptyList,
    handler: async ({ params, ctx }) => {
      await services.preferences.setProvisioned(ctx.userId!, params.appId, params.configKey, params.configValue ?? params.value);
      return [];
    },
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: PATH,
    auth: 'user',
    summary: "Reset one of the caller's own spreed preferences to the server default",
    params: Type.Object(target),
    response: EmptyList,
    handler: async ({ params, ctx }) => {
      await services.preferences.deleteProvisioned(ctx.userId!, params.appId, params.configKey);
      return [];
    },
  });
}
