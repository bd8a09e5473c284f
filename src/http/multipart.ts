/**
 * A streaming multipart/form-data body parser (avatar uploads, docs/reference/conversations.md#avatars). Parts are read
 * as they arrive; a file part is kept only up to `maxFileBytes`: past that the part is marked
 * `tooBig`, the request is answered at once, and the rest of the body is read and dropped (never
 * kept) until `maxDiscardBytes`, after which the connection is closed. Text fields end up in the
 * request data like form fields; file parts as `UploadedFile`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../domain/errors.js';

/** A file part of a multipart body. `data` is undefined when the part was too big. */
export class UploadedFile {
  constructor(
    readonly filename: string,
    readonly contentType: string,
    readonly data: Buffer | undefined,
    /** Bytes seen (at most maxFileBytes + 1 when too big). */
    readonly size: number,
  ) {}

  get tooBig(): boolean {
    return this.data === undefined;
  }
}

export interface MultipartLimits {
  maxFileBytes: number;
  /** Text fields: larger ones fail the request with 400 `body`. */
  maxFieldBytes: number;
  maxParts: number;
  /** After answering early, at most this much more is read and dropped before the socket closes. */
  maxDiscardBytes: number;
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const MAX_HEADER_BYTES = 16 * 1024;

const malformed = (message: string) => new ApiError(400, { error: 'body', message });

function boundaryOf(contentType: string | undefined): string | undefined {
  const m = /boundary=(?:"([^"]{1,70})"|([^;\s]{1,70}))/i.exec(contentType ?? '');
  return m ? (m[1] ?? m[2]) : undefined;
}

function dispositionParam(headers: string, name: string): string | undefined {
  const line = headers.split('\r\n').find((l) => /^content-disposition:/i.test(l));
  if (!line) return undefined;
  const m = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${name}=([^;\\s]+)`, 'i').exec(line);
  return m ? (m[1] ?? m[2]).replace(/\\(.)/g, '$1') : undefined;
}

function headerValue(headers: string, name: string): string {
  const line = headers.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name}:`));
  return line ? line.slice(name.length + 1).trim() : '';
}

type State = 'preamble' | 'delimiter' | 'headers' | 'body' | 'done';

/**
 * Parses one body from `stream`. Resolves with the fields as soon as the closing delimiter is
 * seen or a file part goes past the limit (then `onEarlyAnswer` is called so the caller can drop
 * the rest of the stream).
 */
function parseMultipart(
  stream: IncomingMessage,
  contentType: string | undefined,
  limits: MultipartLimits,
  onEarlyAnswer: () => void,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const boundary = boundaryOf(contentType);
    if (!boundary) return reject(malformed('The multipart body has no boundary'));
    const delimiter = Buffer.from(`\r\n--${boundary}`);
    const fields: Record<string, unknown> = {};
    // The first delimiter has no CRLF before it: pretend it had one.
    let buf: Buffer = CRLF;
    let state: State = 'preamble';
    let parts = 0;
    let part: { name: string; filename?: string; type: string; chunks: Buffer[]; size: number; limit: number; over: boolean } | undefined;
    let settled = false;

    const finish = (err?: ApiError, early = false) => {
      if (settled) return;
      settled = true;
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      if (early) onEarlyAnswer();
      if (err) reject(err);
      else resolve(fields);
    };

    const closePart = () => {
      if (!part) return;
      if (part.filename !== undefined) {
        fields[part.name] = new UploadedFile(part.filename, part.type, part.over ? undefined : Buffer.concat(part.chunks), part.size);
      } else {
        fields[part.name] = Buffer.concat(part.chunks).toString('utf8');
      }
      part = undefined;
    };

    const take = (chunk: Buffer) => {
      if (!part || chunk.length === 0) return;
      part.size += chunk.length;
      if (part.size > part.limit) {
        part.over = true;
        part.chunks = [];
        return;
      }
      part.chunks.push(chunk);
    };

    const step = (): void => {
      for (;;) {
        if (state === 'preamble' || state === 'body') {
          const at = buf.indexOf(delimiter);
          if (at < 0) {
            // Keep a tail that may hold the start of the delimiter.
            const keep = Math.min(buf.length, delimiter.length - 1);
            if (state === 'body') take(buf.subarray(0, buf.length - keep));
            buf = buf.subarray(buf.length - keep);
            return;
          }
          if (state === 'body') {
            take(buf.subarray(0, at));
            closePart();
          }
          buf = buf.subarray(at + delimiter.length);
          state = 'delimiter';
        }
        if (state === 'delimiter') {
          if (buf.length < 2) return;
          if (buf[0] === 0x2d && buf[1] === 0x2d) {
            state = 'done';
            return finish();
          }
          // Transport padding after the delimiter, then CRLF.
          const eol = buf.indexOf(CRLF);
          if (eol < 0) {
            if (buf.length > 256) return finish(malformed('The multipart body is malformed'));
            return;
          }
          buf = buf.subarray(eol + 2);
          state = 'headers';
        }
        if (state === 'headers') {
          const end = buf.indexOf(HEADER_END);
          const headersRaw = end < 0 ? undefined : buf.subarray(0, end).toString('latin1');
          if (headersRaw === undefined) {
            if (buf.length > MAX_HEADER_BYTES) return finish(malformed('A multipart part header is too long'));
            return;
          }
          buf = buf.subarray(end + 4);
          if (++parts > limits.maxParts) return finish(malformed('The multipart body has too many parts'));
          const name = dispositionParam(headersRaw, 'name') ?? '';
          const filename = dispositionParam(headersRaw, 'filename');
          const isFile = filename !== undefined;
          part = {
            name,
            filename,
            type: headerValue(headersRaw, 'content-type'),
            chunks: [],
            size: 0,
            limit: isFile ? limits.maxFileBytes : limits.maxFieldBytes,
            over: false,
          };
          state = 'body';
          continue;
        }
        return;
      }
    };

    const onData = (chunk: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      step();
      if (settled || !part?.over) return;
      if (part.filename === undefined) return finish(malformed(`The field ${part.name} is too long`), true);
      // A file past the limit: answer now, the rest of the body is dropped unread.
      closePart();
      finish(undefined, true);
    };
    const onEnd = () => finish(malformed('The multipart body ended before its closing boundary'));

    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', (err) => finish(malformed(String(err?.message ?? 'upload failed'))));
  });
}

/**
 * Registers the parser for multipart/form-data. After an early answer the rest of the body is
 * drained without keeping it, and the connection is closed past `maxDiscardBytes`.
 */
export function registerMultipart(app: FastifyInstance, limits: MultipartLimits): void {
  app.addContentTypeParser('multipart/form-data', (request: FastifyRequest, payload: IncomingMessage, done: (err: Error | null, body?: unknown) => void) => {
    const drain = () => {
      let dropped = 0;
      payload.on('data', (c: Buffer) => {
        dropped += c.length;
        if (dropped > limits.maxDiscardBytes) request.raw.socket?.destroy();
      });
      payload.resume();
    };
    parseMultipart(payload, request.headers['content-type'], limits, drain).then(
      (body) => done(null, body),
      (err) => done(err as Error),
    );
  });
}
