/**
 * Push registration (nextcloud/notifications' PushController; docs/talk-apps.md "Push
 * notifications"): `POST /ocs/v2.php/apps/notifications/api/v2/push` registers the device of
 * the app password the request is signed with (201 new or changed, 200 unchanged, with the
 * account's public key, the device identifier and its signature for the proxy), `DELETE`
 * unregisters it (202, or 200 when there was none). Web Push (the notifications app's
 * WebPushController): `GET …/webpush/vapid`, `POST …/webpush` (201 registered, activation token
 * pushed; 200 only the app types changed), `POST …/webpush/activate` (202, 200 already active),
 * `DELETE …/webpush` (202, 200). v2 only, as the notifications app.
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

  const web = push.webPush;
  const WEBPUSH = '/apps/notifications/api/v2/webpush';

  ocsRoute(app, services, {
    method: 'GET',
    path: `${WEBPUSH}/vapid`,
    v2Only: true,
    auth: 'user',
    params: Type.Object({}),
    response: Type.Object({ vapid: Type.String({ description: "The server's VAPID public key, base64url (uncompressed P-256)" }) }),
    summary: "The server's VAPID public key for browser push subscriptions",
    handler: async () => ({ vapid: await web.vapidPublicKey() }),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: WEBPUSH,
    v2Only: true,
    auth: 'user',
    params: Type.Object({
      endpoint: Type.String({ maxLength: 4096, 'x-error': 'endpoint' }),
      uaPublicKey: Type.String({ maxLength: 1024, 'x-error': 'uaPublicKey' }),
      auth: Type.String({ maxLength: 1024, 'x-error': 'auth' }),
      appTypes: Type.Optional(Type.String({ maxLength: 4096, 'x-error': 'appTypes' })),
      apptypes: Type.Optional(Type.String({ maxLength: 4096, 'x-error': 'apptypes' })),
    }),
    response: EmptyList,
    statuses: {
      201: 'registered: the activation token is pushed through the subscription',
      400: 'INVALID_P256DH, INVALID_AUTH, INVALID_ENDPOINT, TOO_MANY_APP_TYPES or INVALID_SESSION_TOKEN, in data.message',
      403: 'WEBPUSH_DISABLED',
    },
    summary: "Register the caller's Web Push subscription (201, or 200 when only the app types changed)",
    handler: async ({ ctx, params }) =>
      new OcsReply([], await web.register(ctx, params.endpoint, params.uaPublicKey, params.auth, params.appTypes ?? params.apptypes ?? 'all')),
  });

  ocsRoute(app, services, {
    method: 'POST',
    path: `${WEBPUSH}/activate`,
    v2Only: true,
    auth: 'user',
    params: Type.Object({ activationToken: Type.String({ maxLength: 256, 'x-error': 'activationToken' }) }),
    response: EmptyList,
    statuses: {
      202: 'activated',
      400: 'INVALID_ACTIVATION_TOKEN or INVALID_SESSION_TOKEN',
      403: 'WEBPUSH_DISABLED',
      404: 'NO_PUSH_SUBSCRIPTION',
    },
    summary: "Activate the caller's Web Push subscription with the token pushed to it (202, or 200 when active)",
    handler: async ({ ctx, params }) => new OcsReply([], await web.activate(ctx, params.activationToken)),
  });

  ocsRoute(app, services, {
    method: 'DELETE',
    path: WEBPUSH,
    v2Only: true,
    auth: 'user',
    params: Type.Object({}),
    response: EmptyList,
    statuses: { 202: 'the subscription was removed', 400: 'INVALID_SESSION_TOKEN' },
    summary: "Remove the caller's Web Push subscription (202, or 200 when there was none)",
    handler: async ({ ctx }) => new OcsReply([], (await web.unregister(ctx)) ? 202 : 200),
  });
}
