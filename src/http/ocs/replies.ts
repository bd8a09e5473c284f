/**
 * What an OCS route's handler receives (`OcsCall`) and what it may hand back besides plain
 * `data`: a status or headers (`OcsReply`), a non-OCS body (`RawReply`), or, on a route with a
 * `cache` option, what the answer was computed from (`KeptReply`). Apart from route.ts so that
 * the OCS layer's helpers (cached-answer.ts) can use them without importing route.ts back.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestContext } from '../../services/platform/request-context.js';
import type { OcsFormat, OcsVersion } from './envelope.js';

export interface OcsCall<P> {
  params: P;
  ctx: RequestContext;
  version: OcsVersion;
  format: OcsFormat;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** A successful OCS answer with a status other than 200 and/or extra headers. */
export class OcsReply {
  constructor(
    readonly data: unknown,
    readonly status = 200,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** A non-OCS answer (images, plain bodies) from an OCS route. */
export class RawReply {
  constructor(
    readonly body: Buffer | string,
    readonly contentType: string,
    readonly status = 200,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** What a kept answer was computed from (`ocsRoute`'s `cache` option; src/cache/rendered-cache.ts). */
export interface AnswerValidity {
  /** Unix second after which the answer may be stale without a write (lobby timers, session and status expiry); Infinity when left out. */
  until?: number;
  /**
   * The change-feed topics the answer was computed from besides `g` (src/cache/answer-topics.ts):
   * with them it is reused while none changed; without, only while nothing at all was written.
   */
  topics?: readonly string[];
}

/**
 * The answer of a route with a `cache` option, with what it was computed from. A cached route
 * may also return plain data or an `OcsReply`: kept until the next write, whatever it was.
 */
export class KeptReply extends OcsReply {
  constructor(
    data: unknown,
    readonly validity: AnswerValidity,
    headers: Record<string, string> = {},
  ) {
    super(data, 200, headers);
  }
}
