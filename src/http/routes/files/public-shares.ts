/**
 * A file shared into a public conversation, through its link (docs/reference/files.md#public-links):
 * `/index.php/s/{token}` (a page with the download link), `/download` (the bytes, with Range) and
 * the preview (`/index.php/s/{token}/preview` and `/index.php/apps/files_sharing/publicpreview/{token}`,
 * with `x`, `y`, `a` as /core/preview). Anything else — an unknown token, a share of a
 * conversation that is not public, an unshared or expired one — is 404, no login needed or used.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../../domain/errors.js';
import type { Services } from '../../../services/index.js';
import { sendFile } from './send-file.js';

const TOKEN = /^[A-Za-z0-9]{1,32}$/;
const escapeHtml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

class RangeRefused extends Error {
  constructor(readonly contentRange: string) {
    super('Requested range not satisfiable');
  }
}

function notFound(reply: FastifyReply): FastifyReply {
  return reply.code(404).type('text/plain; charset=utf-8').header('Cache-Control', 'no-store').send('Share not found');
}

/** A positive whole number from a query value, the default when absent, undefined when bad. */
function positive(raw: unknown, fallback: number): number | undefined {
  if (raw === undefined || raw === '') return fallback;
  return typeof raw === 'string' && /^\d{1,9}$/.test(raw) && Number(raw) > 0 ? Number(raw) : undefined;
}

export async function publicShareRoutes(app: FastifyInstance, services: Services): Promise<void> {
  /** The share of the request's token, or (`inner`) a file or folder inside its shared folder. */
  const lookup = async (request: FastifyRequest, inner = '') => {
    const token = (request.params as { token?: string }).token ?? '';
    return TOKEN.test(token) ? services.fileShares.byLink(token, inner) : undefined;
  };

  /**
   * The path below a shared folder a request names, as Nextcloud's public share download
   * (`?path=/sub/file`, or `?path=/sub&files=file`) and public preview (`?file=/sub/file`) take it.
   */
  const innerPath = (request: FastifyRequest, keys: string[]): string | undefined => {
    const q = (request.query ?? {}) as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of keys) {
      const v = q[key];
      if (v === undefined || v === '') continue;
      if (typeof v !== 'string') return undefined;
      parts.push(v);
    }
    return parts.join('/');
  };

  const badPath = (reply: FastifyReply, message: string) => reply.code(400).type('text/plain; charset=utf-8').header('Cache-Control', 'no-store').send(message);

  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const inner = innerPath(request, ['path']);
    if (inner === undefined) return badPath(reply, 'path must be given once');
    let found;
    try {
      found = await lookup(request, inner);
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) return badPath(reply, (err.data as { message?: string }).message ?? 'Invalid path');
      throw err;
    }
    if (!found) return notFound(reply);
    const base = `/index.php/s/${found.share.token}`;
    const name = escapeHtml(found.file.name);
    let body: string;
    if (found.file.is_dir) {
      // A shared folder (or one inside it): its entries, files to download, folders to open.
      const shared = (await lookup(request))!.file;
      const entries = await services.files.children(found.file.owner, found.file);
      const items = entries.map((e) => {
        const rel = encodeURIComponent(`/${e.path.slice(shared.path.length + 1)}`);
        const href = e.is_dir ? `${base}?path=${rel}` : `${base}/download?path=${rel}`;
        return `<li><a href="${href}">${escapeHtml(e.name)}${e.is_dir ? '/' : ''}</a></li>`;
      });
      body = `<h1>${name}</h1><ul>${items.join('')}</ul>`;
    } else {
      const href = inner === '' ? `${base}/download` : `${base}/download?path=${encodeURIComponent(`/${inner.replace(/^\/+/, '')}`)}`;
      body = `<h1>${name}</h1><p>${found.file.size} bytes, ${escapeHtml(found.file.mimetype)}</p><p><a href="${href}">Download</a></p>`;
    }
    return reply
      .code(200)
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', "default-src 'none'; img-src 'self'")
      .header('X-Content-Type-Options', 'nosniff')
      .send(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>${name}</title></head><body>${body}</body></html>`);
  };

  const download = async (request: FastifyRequest, reply: FastifyReply) => {
    const inner = innerPath(request, ['path', 'files']);
    if (inner === undefined) return badPath(reply, 'path and files must be given once');
    try {
      const found = await lookup(request, inner);
      // A folder (the shared one, or one inside it) is not downloaded as a zip: only files.
      if (!found || found.file.is_dir) return notFound(reply);
      return sendFile(request, reply, found.file, services.files, (range) => new RangeRefused(range));
    } catch (err) {
      if (err instanceof RangeRefused) return reply.code(416).header('Content-Range', err.contentRange).send();
      if (err instanceof ApiError && err.status === 400) return badPath(reply, (err.data as { message?: string }).message ?? 'Invalid path');
      throw err;
    }
  };

  const preview = async (request: FastifyRequest, reply: FastifyReply) => {
    const q = (request.query ?? {}) as Record<string, unknown>;
    const x = positive(q.x, 32);
    const y = positive(q.y, 32);
    const a = q.a === undefined || q.a === '' ? '0' : q.a;
    if (x === undefined || y === undefined || (a !== '0' && a !== '1' && a !== 'true' && a !== 'false'))
      return reply.code(400).type('text/plain; charset=utf-8').send('x and y must be positive whole numbers and a 0 or 1');
    const inner = innerPath(request, ['file']);
    if (inner === undefined) return badPath(reply, 'file must be given once');
    try {
      const found = await lookup(request, inner);
      if (!found) return notFound(reply);
      const p = await services.previews.render(found.file, x, y, a === '1' || a === 'true');
      return reply.code(200).type(p.contentType).header('ETag', p.etag).header('X-Content-Type-Options', 'nosniff').send(p.data);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return notFound(reply);
      if (err instanceof ApiError && err.status === 400) return badPath(reply, (err.data as { message?: string }).message ?? 'Invalid path');
      throw err;
    }
  };

  for (const prefix of ['/index.php/s', '/s']) {
    app.get(`${prefix}/:token`, page);
    app.route({ method: ['GET', 'HEAD'], url: `${prefix}/:token/download`, handler: download });
    app.get(`${prefix}/:token/preview`, preview);
  }
  for (const url of ['/index.php/apps/files_sharing/publicpreview/:token', '/apps/files_sharing/publicpreview/:token']) app.get(url, preview);
}
