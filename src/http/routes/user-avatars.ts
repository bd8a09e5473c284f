/**
 * User avatars at Nextcloud's paths (server `AvatarController`, `GuestAvatarController`), which
 * Talk clients load for every person they show:
 * - `GET /index.php/avatar/{userId}/{size}` and `.../dark`: public, no CSRF; 404 JSON `[]` for
 *   an unknown user; `Cache-Control: private, max-age=86400, immutable` (30 days with `?v=`),
 *   `ETag` (304 on `If-None-Match`), `X-NC-IsCustomAvatar`.
 * - `GET /index.php/avatar/guest/{name}/{size}` and `.../dark`: the generated avatar of a guest
 *   name, status 201 as Nextcloud (not a custom avatar), cached 30 minutes.
 * - `POST /index.php/avatar` (multipart `files[]`, `files` or `file`) and `DELETE /index.php/avatar`:
 *   the caller's own avatar; logged in (Basic, app password or Parley's browser session) and,
 *   like any non-GET Nextcloud page route used by API clients, `OCS-APIRequest: true` (CSRF).
 * Every path answers with and without `/index.php`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import type { AvatarUpload } from '../../services/conversations/avatars.js';
import type { Services } from '../../services/index.js';
import type { UserAvatarImage } from '../../services/accounts/user-avatars.js';
import { UploadedFile } from '../multipart.js';
import { buildContext } from '../ocs/route.js';

const DAY = 86_400;
const VERSIONED = 30 * DAY;
const GUEST = 1800;

function json(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').header('Cache-Control', 'no-store').send(JSON.stringify(body));
}

/** Nextcloud's `Response::cacheFor(seconds, public: false, immutable: true)`. */
function cacheHeaders(seconds: number): Record<string, string> {
  return { 'Cache-Control': `private, max-age=${seconds}, immutable`, Expires: new Date(Date.now() + seconds * 1000).toUTCString() };
}

function sendImage(request: FastifyRequest, reply: FastifyReply, img: UserAvatarImage, status: number, cacheSeconds: number): FastifyReply {
  const headers: Record<string, string> = {
    ...cacheHeaders(cacheSeconds),
    ETag: img.etag,
    'X-Content-Type-Options': 'nosniff',
    'X-NC-IsCustomAvatar': img.custom ? '1' : '0',
  };
  if (img.modified) headers['Last-Modified'] = new Date(img.modified * 1000).toUTCString();
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
  // SVG may carry script; never let it run as a page.
  if (img.contentType === 'image/svg+xml') reply.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
  const match = request.headers['if-none-match'];
  if (typeof match === 'string' && match.split(',').some((t) => t.trim().replace(/^W\//, '') === img.etag)) return reply.code(304).send();
  return reply.code(status).type(img.contentType).send(img.body);
}

/** The size path segment: digits only (a bad one is 400, not a silent default). */
function sizeOf(raw: string): number | undefined {
  return /^\d{1,6}$/.test(raw) ? Number(raw) : undefined;
}

function both(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
) {
  app.route({ method, url: `/index.php${path}`, handler });
  app.route({ method, url: path, handler });
}

export async function userAvatarRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const avatars = services.userAvatars;
  const badSize = (reply: FastifyReply) => json(reply, 400, { data: { error: 'size', message: 'The size must be a number of pixels' } });

  for (const dark of [false, true]) {
    const suffix = dark ? '/dark' : '';
    both(app, 'GET', `/avatar/guest/:name/:size${suffix}`, async (request, reply) => {
      const { name, size } = request.params as { name: string; size: string };
      const n = sizeOf(size);
      if (n === undefined) return badSize(reply);
      return sendImage(request, reply, await avatars.guestImage(name, n, dark), 201, GUEST);
    });

    both(app, 'GET', `/avatar/:userId/:size${suffix}`, async (request, reply) => {
      const { userId, size } = request.params as { userId: string; size: string };
      const n = sizeOf(size);
      if (n === undefined) return badSize(reply);
      const v = (request.query as Record<string, unknown> | undefined)?.v;
      try {
        const img = await avatars.image(userId, n, dark);
        return sendImage(request, reply, img, 200, typeof v === 'string' && v !== '' ? VERSIONED : DAY);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return json(reply, 404, []);
        throw err;
      }
    });
  }

  /** The logged-in caller of an upload/removal, or an answer already sent. */
  async function caller(request: FastifyRequest, reply: FastifyReply): Promise<string | FastifyReply> {
    const h = request.headers['ocs-apirequest'];
    if (typeof h !== 'string' || h.trim() === '') return json(reply, 412, { message: 'CSRF check failed' });
    try {
      const ctx = await buildContext(services, request);
      if (ctx.userId) {
        (request as any).parleyUser = ctx.userId;
        return ctx.userId;
      }
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.status === 429) return json(reply, 429, { data: { error: 'throttled', message: 'Too many failed attempts' } });
    }
    return json(reply, 401, { message: 'Current user is not logged in' });
  }

  both(app, 'POST', '/avatar', async (request, reply) => {
    const who = await caller(request, reply);
    if (typeof who !== 'string') return who;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const part = [body['files[]'], body.files, body.file].flat().find((x) => x instanceof UploadedFile) as UploadedFile | undefined;
    const upload: AvatarUpload | undefined = part ? { data: part.data, tooBig: part.tooBig } : undefined;
    try {
      await avatars.upload(who, upload);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return json(reply, err.status, { data: err.data });
    }
    return json(reply, 200, { status: 'success' });
  });

  both(app, 'DELETE', '/avatar', async (request, reply) => {
    const who = await caller(request, reply);
    if (typeof who !== 'string') return who;
    await avatars.remove(who);
    return json(reply, 200, {});
  });
}
