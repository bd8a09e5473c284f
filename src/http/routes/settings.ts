/**
 * Settings (contract "Settings", base api/v1): the caller's user settings and the admin's SIP
 * bridge settings. docs/reference/capabilities-and-config.md#user-settings.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { ocsRoute } from '../ocs/route.js';

const SETTINGS = '/apps/spreed/api/v1/settings';

export async function settingsRoutes(app: FastifyInstance, services: Services): Promise<void> {
  ocsRoute(app, services, {
    method: 'POST',
    path: `${SETTINGS}/user`,
    auth: 'user',
    talk: true,
    summary: "Set one of the caller's user settings (attachment_folder, read_status_privacy, typing_privacy, play_sounds)",
    params: Type.Object({
      key: Type.String({ maxLength: 64 }),
      // Ints arrive as numbers in JSON bodies; they are validated as their decimal string.
      value: Type.String({ maxLength: 4096 }),
    }),
    response: Type.Null(),
    handler: async ({ params, ctx }) => {
      await services.preferences.setUserSetting(ctx.userId!, params.key, params.value);
      return null;
    },
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${SETTINGS}/sip`,
    capability: 'sip-support',
    auth: 'admin',
    summary: 'Set the SIP bridge settings (admin): sipGroups, dialInInfo, sharedSecret, all in one request',
    params: Type.Object({
      sipGroups: Type.Array(Type.String({ maxLength: 255 }), { default: [], maxItems: 1000 }),
      dialInInfo: Type.String({ default: '' }),
      sharedSecret: Type.String({ default: '' }),
    }),
    response: Type.Null(),
    handler: async ({ params }) => {
      await services.sipSettings.save(params);
      return null;
    },
  });
}
