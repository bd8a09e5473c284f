/**
 * `GET /index.php/core/preview?fileId=&x=&y=&a=` (and without /index.php), Nextcloud's preview
 * endpoint (server core PreviewController): the image, or 404 JSON when there is none or the
 * caller may not see the file; 400 for bad parameters; 401 without a login.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.js';
import type { Services } from '../../../services/index.js';
import { buildContext } from '../../ocs/route.js';

function json(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').header('Cache-Control', 'no-store').send(JSON.stringify(body));
}

/** A positive whole number from a query value, the default when absent, undefined when bad. */
function positive(raw: unknown, fallback: number | undefined): number | undefined {
  if (raw === undefined || raw === '') return fallback;
  return typeof raw === 'string' && /^\d{1,9}$/.test(raw) && Number(raw) > 0 ? Number(raw) : undefined;
}

export async function previewRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const q = (request.query ?? {}) as Record<string, unknown>;
    const fileId = positive(q.fileId, undefined);
    // Nextcloud's defaults: 32×32, cropped.
    const x = positive(q.x, 32);
    const y = positive(q.y, 32);
    const a = q.a === undefined || q.a === '' ? '0' : q.a;
    if (fileId === undefined || x === undefined || y === undefined || (a !== '0' && a !== '1' && a !== 'true' && a !== 'false')) {
      return json(reply, 400, { data: { error: 'preview', message: 'fileId, x and y must be positive whole numbers and a 0 or 1' } });
    }
    let userId: string | undefined;
    try {
      userId = (await buildContext(services, request)).userId;
    } catch (err) {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      return json(reply, err.status, { data: err.data });
    }
    if (!userId) return json(reply, 401, { message: 'Current user is not logged in' });
    (request as { parleyUser?: string }).parleyUser = userId;
    try {
      const preview = await services.previews.preview(userId, fileId, x, y, a === '1' || a === 'true');
      const match = request.headers['if-none-match'];
      reply.header('ETag', preview.etag).header('Cache-Control', 'private, max-age=86400').header('X-Content-Type-Options', 'nosniff');
      if (match === preview.etag) return reply.code(304).send();
      return reply.code(200).type(preview.contentType).send(preview.data);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return json(reply, 404, { data: err.data });
      throw err;
    }
  };
  for (const url of ['/index.php/core/preview', '/core/preview', '/index.php/core/preview.png', '/core/preview.png']) app.get(url, handler);
}
