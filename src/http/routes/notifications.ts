/**
 * The notifications app API Talk clients poll (notifications `EndpointController`), under
 * `/ocs/v2.php/apps/notifications/api/{v1,v2}/notifications`:
 * list (newest 25, `ETag` = md5 of the ids on v2, 304 on `If-None-Match`, `X-Nextcloud-User-Status`),
 * get one (404 for 0, missing or someone else's), delete one (200 even when already gone, 404
 * for 0), delete all, and `POST …/exists` (which ids still exist, 400 past 200).
 * Push registration is in push.ts. Also serves the `icon` the records point at (`/apps/spreed/img/app-dark.svg`).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services/index.js';
import { OcsReply, RawReply, ocsRoute } from '../ocs/route.js';
import { serverUrl } from '../server-url.js';
import { EmptyList } from './common-schemas.js';

const Id = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, 'x-error': 'id' });
const Record = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'notification_id, app, user, datetime, object_type, object_id, subject, message, link, (v2:) subjectRich, subjectRichParameters, messageRich, messageRichParameters, icon, shouldNotify, actions',
  },
);

/** Talk's monochrome app icon, as the notification `icon` URL (no network fetch needed). */
const APP_ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32"><path fill="#000" d="M16 3C8.8 3 3 8.4 3 15c0 3.4 1.5 6.4 4 8.6V29l5.3-3.1c1.2.3 2.4.5 3.7.5 7.2 0 13-5.4 13-11.9S23.2 3 16 3zm0 5a7 7 0 1 1 0 14 7 7 0 0 1 0-14z"/></svg>';

export async function notificationRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const notes = services.notifications;

  app.get('/apps/spreed/img/app-dark.svg', async (_request, reply) =>
    reply.type('image/svg+xml').header('Cache-Control', 'public, max-age=604800').header('X-Content-Type-Options', 'nosniff').send(APP_ICON),
  );

  for (const api of ['v1', 'v2'] as const) {
    const base = `/apps/notifications/api/${api}/notifications`;

    ocsRoute(app, services, {
      method: 'GET',
      path: base,
      auth: 'user',
      csrf: false,
      params: Type.Object({}),
      response: Type.Array(Record),
      summary: `The caller's notifications, newest first (at most 25)${api === 'v2' ? ', with ETag' : ''}`,
      handler: async ({ ctx, request }) => {
        const list = await notes.list(ctx, serverUrl(services), api);
        const headers: Record<string, string> = { 'X-Nextcloud-User-Status': await notes.userStatusOf(ctx.userId!) };
        if (api === 'v2') {
          headers.ETag = `"${list.etag}"`;
          const match = request.headers['if-none-match'];
          if (typeof match === 'string' && match.split(',').some((t) => t.trim().replace(/^W\//, '') === headers.ETag)) {
            return new RawReply('', 'application/json; charset=utf-8', 304, headers);
          }
        }
        return new OcsReply(list.records, 200, headers);
      },
    });

    ocsRoute(app, services, {
      method: 'GET',
      path: `${base}/:id`,
      auth: 'user',
      csrf: false,
      params: Type.Object({ id: Id }),
      response: Record,
      summary: 'One notification of the caller (404 for 0, missing or not theirs)',
      handler: ({ ctx, params }) => notes.get(ctx, params.id, serverUrl(services), api),
    });

    ocsRoute(app, services, {
      method: 'DELETE',
      path: `${base}/:id`,
      auth: 'user',
      params: Type.Object({ id: Id }),
      response: EmptyList,
      summary: 'Dismiss one notification (200 even when it is already gone; 404 for id 0)',
      handler: async ({ ctx, params }) => {
        await notes.deleteOne(ctx, params.id);
        return [];
      },
    });

    ocsRoute(app, services, {
      method: 'DELETE',
      path: base,
      auth: 'user',
      params: Type.Object({}),
      response: EmptyList,
      summary: "Dismiss all of the caller's notifications",
      handler: async ({ ctx }) => {
        await notes.deleteAll(ctx);
        return [];
      },
    });

    ocsRoute(app, services, {
      method: 'POST',
      path: `${base}/exists`,
      auth: 'user',
      params: Type.Object({ ids: Type.Array(Id, { default: [], maxItems: 10_000, 'x-error': 'ids' }) }),
      response: Type.Array(Type.Integer()),
      summary: 'Which of the given notification ids still exist for the caller (at most 200)',
      handler: ({ ctx, params }) => notes.exists(ctx, params.ids),
    });
  }
}
