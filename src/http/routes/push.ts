/**
 * Push registration (nextcloud/notifications' PushController; docs/talk-apps.md "Push
 * notifications"): `POST /ocs/v2.php/apps/notifications/api/v2/push` registers the device of
 * the app password the request is signed with (201 new or changed, 200 unchanged, with the
 * account's public key, the device identifier and its signature for the proxy), `DELETE`
 * unregisters it (202, or 200 when there was none). v2 only, as the notifications app.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { OcsReply, ocsRoute } from '../ocs/route.js';
import { EmptyList } from './common-schemas.js';

const Registered = Type.Object({
  publicKey: Type.String({ description: "The account's RSA 2048 public key (PEM)" }),
  deviceIdentifier: Type.String({ description: 'base64 of the sha512 of the signed identity' }),
  signature: Type.String({ description: 'base64 RSA-SHA512 signature of the identity with the account key' }),
});

export async function pushRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const push = services.push;

  ocsRoute(app, services, {
    method: 'POST',
    path: '/apps/notifications/api/v2/push',
    v2Only: true,
    auth: 'user',
    params: Type.Object({
      pushTokenHash: Type.String({ maxLength: 1024, 'x-error': 'pushTokenHash' }),
      devicePublicKey: Type.String({ maxLength: 4096, 'x-error': 'devicePublicKey' }),
      proxyServer: Type.String({ maxLength: 1024, 'x-error': 'proxyServer' }),
    }),
    response: Registered,
    statuses: {
      201: 'the device was registered or its registration changed: it must be sent to the proxy',
      400: 'INVALID_PUSHTOKEN_HASH, INVALID_DEVICE_KEY, INVALID_PROXY_SERVER, or INVALID_SESSION_TOKEN (not signed with an app password), in data.message',
    },
    summary: "Register the caller's device for push notifications (200 unchanged, 201 new or changed)",
    handler: async ({ ctx, params, request }) => {
      const r = await push.registration.register(
        ctx,
        params.pushTokenHash,
        params.devicePublicKey,
        params.proxyServer,
        String(request.headers['user-agent'] ?? ''),
      );
      return new OcsReply(r.data, r.status);
    },
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: '/apps/notifications/api/v2/push',
    v2Only: true,
    auth: 'user',
    params: Type.Object({}),
    response: EmptyList,
    statuses: { 202: 'the device was unregistered', 400: 'INVALID_SESSION_TOKEN: not signed with an app password' },
    summary: "Unregister the caller's device (202, or 200 when none was registered)",
    handler: async ({ ctx }) => new OcsReply([], (await push.registration.unregister(ctx)) ? 202 : 200),
  });
}
