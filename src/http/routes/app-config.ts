/**
 * Nextcloud's provisioning API for app config (contract "Server-wide app
 * configuration"), admin only. Nextcloud wraps every answer in a `data` key inside the OCS data:
 *   GET    /apps/provisioning_api/api/v1/config/apps              → {data: ["spreed"]}
 *   GET    /apps/provisioning_api/api/v1/config/apps/{app}        → {data: [stored keys, sorted]}
 *   GET    /apps/provisioning_api/api/v1/config/apps/{app}/{key}  → {data: "stored value or default"}
 *   POST   /apps/provisioning_api/api/v1/config/apps/{app}/{key}  (`value`) → []
 *   DELETE /apps/provisioning_api/api/v1/config/apps/{app}/{key}  → []
 * An app id other than `spreed` is 403 `{error:"app"}` (Nextcloud: "Invalid app id given"); an
 * unknown key 400 `{error:"key"}`; a value the registry refuses 400 `{error:"value"}` and nothing
 * is stored. Secrets are shown masked, never in clear.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { ocsRoute } from '../ocs/route.js';
import { EmptyList } from './common-schemas.js';

const BASE = '/apps/provisioning_api/api/v1/config/apps';

// Any app id string is accepted here; requireApp answers 403 for ids other than spreed.
const AppParams = Type.Object({
  app: Type.String(),
});

/** Nextcloud wraps these answers in a `data` key inside the OCS data. */
const KeyList = Type.Object({ data: Type.Array(Type.String()) });
const Value = Type.Object({ data: Type.String({ description: 'the stored string (secrets masked), else the default' }) });

const KeyParams = Type.Object({
  app: Type.String(),
  key: Type.String({ maxLength: 255, 'x-error': 'key' }),
});

export async function appConfigRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const config = services.appConfig;

  ocsRoute(app, services, {
    method: 'GET',
    path: BASE,
    auth: 'admin',
    params: Type.Object({}),
    response: KeyList,
    summary: 'List the apps that have configuration (always ["spreed"])',
    handler: async () => ({ data: config.apps() }),
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${BASE}/:app`,
    auth: 'admin',
    params: AppParams,
    response: KeyList,
    summary: 'List the stored config keys of an app',
    handler: async ({ params }) => {
      config.requireApp(params.app);
      return { data: await config.storedKeys() };
    },
  });

  ocsRoute(app, services, {
    method: 'GET',
    path: `${BASE}/:app/:key`,
    auth: 'admin',
    params: Type.Object({ ...KeyParams.properties, defaultValue: Type.Optional(Type.String({ maxLength: 65536 })) }),
    response: Value,
    summary: 'Read one config value (secrets masked); the registry default when unset',
    handler: async ({ params }) => {
      config.requireApp(params.app);
      const entry = await config.read(params.key);
      return { data: entry.isDefault && params.defaultValue !== undefined ? params.defaultValue : entry.value };
    },
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${BASE}/:app/:key`,
    auth: 'admin',
    // `value` stays raw: the registry validates and normalises it per key type.
    params: Type.Object({ ...KeyParams.properties, value: Type.Optional(Type.Unknown()) }),
    response: EmptyList,
    summary: 'Set one config value (validated by the registry)',
    handler: async ({ params }) => {
      config.requireApp(params.app);
      await config.set(params.key, params.value);
      return [];
    },
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: `${BASE}/:app/:key`,
    auth: 'admin',
    params: KeyParams,
    response: EmptyList,
    summary: 'Delete one config value (the default applies again)',
    handler: async ({ params }) => {
      config.requireApp(params.app);
      await config.delete(params.key);
      return [];
    },
  });
}
