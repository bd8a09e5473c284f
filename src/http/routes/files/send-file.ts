/**
 * Sending a stored file's bytes (WebDAV GET/HEAD and a public share's download; docs/files.md):
 * one `Range` gives 206, outside the file 416; the headers that keep an uploaded HTML or SVG
 * file from running as a page of Parley's origin.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseRange } from '../../../domain/files/range.js';
import type { FileRow } from '../../../db/repositories/files.js';
import { ocFileId } from '../../../presenters/files/dav.js';
import type { FilesService } from '../../../services/files/files.js';

export function fileHeaders(row: FileRow): Record<string, string> {
  return {
    ETag: `"${row.etag}"`,
    'OC-ETag': `"${row.etag}"`,
    'OC-FileId': ocFileId(row.id),
    'Last-Modified': new Date(row.mtime * 1000).toUTCString(),
  };
}

/** Answers with the file (or the requested range of it); `unsatisfiable` builds the 416 answer. */
export function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  row: FileRow,
  files: FilesService,
  unsatisfiable: (contentRange: string) => Error,
): FastifyReply {
  const range = parseRange(typeof request.headers.range === 'string' ? request.headers.range : undefined, row.size);
  for (const [k, v] of Object.entries(fileHeaders(row))) reply.header(k, v);
  reply
    .header('Accept-Ranges', 'bytes')
    .header('X-Content-Type-Options', 'nosniff')
    .header('Content-Security-Policy', "default-src 'none'")
    .header('Content-Disposition', `attachment; filename*=UTF-8''${encodeURIComponent(row.name)}`);
  if (range.kind === 'unsatisfiable') throw unsatisfiable(`bytes */${row.size}`);
  const part = range.kind === 'part' ? range : undefined;
  const length = part ? part.end - part.start + 1 : row.size;
  reply
    .code(part ? 206 : 200)
    .type(row.mimetype)
    .header('Content-Length', String(length));
  if (part) reply.header('Content-Range', `bytes ${part.start}-${part.end}/${row.size}`);
  if (request.method === 'HEAD' || length === 0) return reply.send();
  return reply.send(files.read(row, part));
}
