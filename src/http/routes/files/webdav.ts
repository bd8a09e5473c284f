/**
 * WebDAV for a user's own files at Nextcloud's path, `/remote.php/dav/files/{user}/{path}`
 * (docs/files.md): PROPFIND (Depth 0 or 1), GET and HEAD (with Range), PUT, MKCOL, MOVE, COPY,
 * DELETE, OPTIONS; and chunked uploads (Nextcloud's chunking v2) under `/remote.php/dav/uploads/`. Logins as on every other route (Basic with the password or an app password,
 * or the browser session; the brute-force throttle counts failures). Answers are WebDAV's (XML
 * multistatus, Sabre's error body), never OCS. Request bodies are not parsed: a PUT streams
 * from the socket into the blob store.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiError } from '../../../domain/errors.js';
import { pathFromUrlSegments } from '../../../domain/files/paths.js';
import type { FileRow } from '../../../db/repositories/files.js';
import { davErrorXml, multistatus, ocFileId, propPatchStatus } from '../../../presenters/files/dav.js';
import { OC_NS, parsePropPatch } from '../../../domain/files/proppatch.js';
import { fileHeaders, sendFile } from './send-file.js';
import type { Services } from '../../../services/index.js';
import { buildContext } from '../../ocs/route.js';

const PREFIX = '/remote.php/dav/files/';
const UPLOADS = '/remote.php/dav/uploads/';
const METHODS = ['GET', 'HEAD', 'PUT', 'PROPFIND', 'PROPPATCH', 'MKCOL', 'MOVE', 'COPY', 'DELETE', 'OPTIONS'] as const;
/**
 * WebDAV methods Nextcloud knows and Parley does not implement (locks, searches, reports, ...):
 * routed so that they answer 405 with the methods that work, in Sabre's body, not a 404.
 */
const UNSUPPORTED = ['LOCK', 'UNLOCK', 'REPORT', 'SEARCH', 'POST', 'PATCH', 'ACL', 'MKCALENDAR'] as const;
/** A PROPPATCH body larger than this is refused (properties are short). */
const PROPPATCH_MAX_BYTES = 64 * 1024;
const XML = 'application/xml; charset=utf-8';
/** Methods that change the resource at the request's path. */
const WRITES = new Set(['PUT', 'MKCOL', 'DELETE', 'MOVE', 'COPY']);

/** A failure answered as WebDAV: status and Sabre's error body. */
class DavError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** User and path of a URL under `prefix` (raw, percent-encoded), or a 400. */
export function davTarget(url: string, prefix: string): { user: string; path: string } {
  const q = url.indexOf('?');
  const rest = (q < 0 ? url : url.slice(0, q)).slice(prefix.length);
  const slash = rest.indexOf('/');
  const rawUser = slash < 0 ? rest : rest.slice(0, slash);
  const parsed = pathFromUrlSegments(slash < 0 ? '' : rest.slice(slash + 1));
  let user: string;
  try {
    user = decodeURIComponent(rawUser);
  } catch {
    throw new DavError(400, 'The user in the path is not valid percent-encoded UTF-8');
  }
  // eslint-disable-next-line no-control-regex
  if (user === '' || /[\u0000-\u001f]/.test(user)) throw new DavError(400, 'Invalid user in the path');
  if ('problem' in parsed) throw new DavError(400, `Invalid path: ${parsed.problem}`);
  return { user, path: parsed.path };
}

/** The destination of a MOVE or COPY: a URL (or absolute path) inside the same user's tree. */
function destinationOf(request: FastifyRequest, user: string): string {
  const header = request.headers.destination;
  if (typeof header !== 'string' || header === '') throw new DavError(400, 'The Destination header is missing');
  let pathname: string;
  try {
    pathname = new URL(header, 'http://destination.invalid').pathname;
  } catch {
    throw new DavError(400, 'The Destination header is not a URL');
  }
  const at = pathname.indexOf(PREFIX);
  if (at < 0) throw new DavError(502, 'The destination is not on this server');
  const target = davTarget(pathname.slice(at), PREFIX);
  if (target.user !== user) throw new DavError(403, "The destination is in another user's files");
  return target.path;
}

function sendError(reply: FastifyReply, status: number, message: string, headers: Record<string, string> = {}): FastifyReply {
  for (const [k, v] of Object.entries(headers)) reply.header(k, v);
  return reply.code(status).type(XML).send(davErrorXml(status, message));
}

/** A small request body as text, or a 413 past `max` bytes. */
async function readBody(request: FastifyRequest, max: number): Promise<string> {
  const declared = contentLength(request);
  if (declared !== undefined && declared > max) throw new DavError(413, 'The request body is too large');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new DavError(413, 'The request body is too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function contentLength(request: FastifyRequest): number | undefined {
  const raw = request.headers['content-length'];
  if (raw === undefined) return undefined;
  if (!/^\d{1,15}$/.test(raw)) throw new DavError(400, 'Invalid Content-Length');
  return Number(raw);
}

export async function webdavRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const files = services.files;
  const received = services.shareTargets;
  // Fastify knows only the common methods; WebDAV's are added (each may carry a body).
  for (const method of ['PROPFIND', 'PROPPATCH', 'MKCOL', 'MOVE', 'COPY', 'LOCK', 'UNLOCK', 'REPORT', 'SEARCH', 'ACL', 'MKCALENDAR'])
    app.addHttpMethod(method, { hasBody: true });

  /** The logged-in user of a request, who must be the user in the path. */
  async function owner(request: FastifyRequest, user: string): Promise<string> {
    let userId: string | undefined;
    try {
      userId = (await buildContext(services, request)).userId;
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) throw new DavError(429, 'Too many failed login attempts, try again later');
      if (err instanceof ApiError && err.status < 500) userId = undefined;
      else throw err;
    }
    if (!userId) throw new DavError(401, 'No public access to this resource.', { 'WWW-Authenticate': 'Basic realm="Nextcloud", charset="UTF-8"' });
    (request as { parleyUser?: string }).parleyUser = userId;
    // Another user's files do not exist for the caller.
    if (user !== userId) throw new DavError(404, 'File not found');
    return userId;
  }

  /** The caller's own file or folder at `path`, else a file shared with them there or inside a folder shared with them (read-only), else 404. */
  async function readable(me: string, path: string): Promise<FileRow> {
    return (await files.stat(me, path)) ?? (await received.at(me, path)) ?? files.require(me, path);
  }

  async function handle(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { user, path } = davTarget(request.url, PREFIX);
    if (request.method === 'OPTIONS') {
      return reply.code(200).header('DAV', '1, 3').header('Allow', METHODS.join(', ')).header('MS-Author-Via', 'DAV').send();
    }
    const me = await owner(request, user);
    // A file shared with the caller is read-only where it appears (docs/reference/files.md#where-received-files-appear).
    // So are the contents of a folder shared with the caller, including new names inside it.
    if (WRITES.has(request.method) && !(await files.stat(me, path)) && (await received.covers(me, path)))
      throw new DavError(403, 'A file shared with you is read-only');
    switch (request.method) {
      case 'PROPFIND': {
        const row = await readable(me, path);
        const depth = String(request.headers.depth ?? 'infinity').trim();
        if (depth !== '0' && depth !== '1' && depth.toLowerCase() !== 'infinity') throw new DavError(400, 'Depth must be 0, 1 or infinity');
        // Depth infinity is answered as 1, as Nextcloud (which disables infinite listings) does.
        const rows = depth === '0' ? [row] : [row, ...(await files.children(me, row)), ...(await received.listIn(me, row))];
        const quota = row.is_dir ? await files.quota(me) : undefined;
        const favorites = await services.fileFavorites.among(me, rows);
        return reply
          .code(207)
          .type(XML)
          .send(multistatus(me, rows, quota, favorites));
      }
      case 'PROPPATCH': {
        const row = await readable(me, path);
        const patch = parsePropPatch(await readBody(request, PROPPATCH_MAX_BYTES));
        if ('problem' in patch) throw new DavError(400, patch.problem);
        // Only oc:favorite can be changed; any other property is refused (403) and, as Sabre
        // does when one property fails, the others are then not applied (424).
        const isFavorite = (p: { ns: string; name: string }) => p.ns === OC_NS && p.name === 'favorite';
        const refused = [...patch.set, ...patch.remove].filter((p) => !isFavorite(p));
        if (refused.length === 0) {
          for (const p of patch.set) await services.fileFavorites.set(me, row, p.value);
          for (const _ of patch.remove) await services.fileFavorites.unset(me, row);
        }
        return reply
          .code(207)
          .type(XML)
          .send(propPatchStatus(me, row, [...patch.set, ...patch.remove], refused));
      }
      case 'GET':
      case 'HEAD': {
        const row = await readable(me, path);
        if (row.is_dir) throw new DavError(405, 'A folder cannot be downloaded');
        return sendFile(request, reply, row, files, (range) => new DavError(416, 'Requested range not satisfiable', { 'Content-Range': range }));
      }
      case 'PUT': {
        const declared = contentLength(request);
        const mtimeHeader = request.headers['x-oc-mtime'];
        const mtime = typeof mtimeHeader === 'string' && /^\d{1,12}$/.test(mtimeHeader) ? Number(mtimeHeader) : undefined;
        const { row, created } = await files.write(me, path, request.raw as Readable, declared, mtime);
        for (const [k, v] of Object.entries(fileHeaders(row))) reply.header(k, v);
        if (mtime !== undefined) reply.header('X-OC-MTime', 'accepted');
        return reply.code(created ? 201 : 204).send();
      }
      case 'MKCOL': {
        if ((contentLength(request) ?? 0) > 0) throw new DavError(415, 'MKCOL with a body is not supported');
        const row = await files.mkdir(me, path);
        return reply.code(201).header('OC-FileId', ocFileId(row.id)).send();
      }
      case 'DELETE':
        await files.remove(me, path);
        return reply.code(204).send();
      case 'MOVE':
      case 'COPY': {
        const to = destinationOf(request, me);
        const overwrite = String(request.headers.overwrite ?? 'T').toUpperCase() !== 'F';
        const { replaced } = await files.transfer(request.method === 'MOVE' ? 'move' : 'copy', me, path, to, overwrite);
        return reply.code(replaced ? 204 : 201).send();
      }
    }
    throw new DavError(405, 'Method not allowed', { Allow: METHODS.join(', ') });
  }

  /** Chunking v2 under /remote.php/dav/uploads/{user}/{id}[/{chunk}|/.file]. */
  async function handleUpload(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { user, path } = davTarget(request.url, UPLOADS);
    const me = await owner(request, user);
    const [uploadId, chunk, ...more] = path === '' ? [] : path.split('/');
    if (uploadId === undefined || more.length > 0) throw new DavError(404, 'No such upload resource');
    const uploads = services.chunkedUploads;
    switch (request.method) {
      case 'MKCOL':
        if (chunk !== undefined) throw new DavError(405, 'Chunks are files, not folders');
        // The Destination names the final file (Nextcloud checks it again at the MOVE).
        await uploads.open(me, uploadId, request.headers.destination ? destinationOf(request, me) : '');
        return reply.code(201).send();
      case 'PUT':
        if (chunk === undefined) throw new DavError(405, 'PUT the chunks inside the upload folder');
        await uploads.putChunk(me, uploadId, chunk, request.raw as Readable, contentLength(request));
        return reply.code(201).send();
      case 'MOVE': {
        if (chunk !== '.file') throw new DavError(403, 'Only the assembled .file can be moved');
        const total = request.headers['oc-total-length'];
        if (total !== undefined && (typeof total !== 'string' || !/^\d{1,15}$/.test(total))) throw new DavError(400, 'Invalid OC-Total-Length');
        const { row, created } = await uploads.assemble(me, uploadId, destinationOf(request, me), total === undefined ? undefined : Number(total));
        for (const [k, v] of Object.entries(fileHeaders(row))) reply.header(k, v);
        return reply.code(created ? 201 : 204).send();
      }
      case 'DELETE':
        if (chunk !== undefined) throw new DavError(403, 'Chunks cannot be deleted one by one');
        await uploads.cancel(me, uploadId);
        return reply.code(204).send();
    }
    throw new DavError(405, 'Method not allowed');
  }

  await app.register(async (dav) => {
    // Bodies stay unread until a handler streams them (PUT); PROPFIND bodies are not needed,
    // since every property Parley has is sent.
    dav.removeAllContentTypeParsers();
    dav.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    const wrap = (inner: typeof handle) => async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        return await inner(request, reply);
      } catch (err) {
        if (err instanceof DavError) return sendError(reply, err.status, err.message, err.headers);
        if (err instanceof ApiError && err.status !== 500) {
          const data = err.data as { message?: string; error?: string };
          return sendError(reply, err.status, data.message ?? data.error ?? 'Request refused');
        }
        throw err;
      }
    };
    for (const url of ['/remote.php/dav/files/:user', '/remote.php/dav/files/:user/*']) {
      dav.route({ method: [...METHODS], url, handler: wrap(handle) });
      dav.route({
        method: [...UNSUPPORTED],
        url,
        handler: wrap(async () => {
          throw new DavError(405, 'This method is not supported by this server', { Allow: METHODS.join(', ') });
        }),
      });
    }
    dav.route({ method: ['PUT', 'MKCOL', 'MOVE', 'DELETE'], url: '/remote.php/dav/uploads/:user/*', handler: wrap(handleUpload) });
  });
}
