/**
 * The one way to declare an API route. `ocsRoute` registers the path under /ocs/v2.php and
 * /ocs/v1.php, applies the CSRF rule, authentication, the allowed-groups rule and parameter
 * coercion, calls the handler, and renders its result (or error) in the OCS envelope.
 * Handlers receive typed params and a RequestContext; they never touch SQL. A hot read route
 * declares `cache` and its whole answer is kept (cached-answer.ts) instead of being computed
 * again while nothing it was computed from changed.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { ApiError, adminRequired, badRequest, forbidden, notLoggedIn } from '../../domain/errors.js';
import type { Services } from '../../services/index.js';
import { RequestContext } from '../../services/platform/request-context.js';
import { sessionKeyFromCookie } from '../../services/participants/client-sessions.js';
import { LOGIN_COOKIE, loginSessionUser, readCookie } from '../auth/login-session.js';
import { negotiateFormat, renderOcs, type OcsFormat, type OcsVersion } from './envelope.js';
import { keptAnswers, type RouteCache } from './cached-answer.js';
import { OcsReply, RawReply, type OcsCall } from './replies.js';
import { compileParams, mergeParams } from './params.js';
import { featureCondition } from '../../domain/features.js';
import { proxiedCredentials } from '../../services/federation/secrets.js';

export type RouteAuth = 'public' | 'user' | 'admin';

export { KeptReply, OcsReply, RawReply, type OcsCall } from './replies.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The OCS route definitions of this server, in registration order (buildServer starts the
     * list; `ocsRoute` appends; GET /openapi.json is generated from it).
     */
    ocsRoutes: OcsRouteDef<any>[];
  }
}

export interface OcsRouteDef<S extends TObject | undefined> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path after /ocs/v2.php, e.g. `/apps/spreed/api/v4/room/:token`. */
  path: string;
  auth: RouteAuth;
  /** Talk route: users outside a non-empty `allowed_groups` get 403. */
  talk?: boolean;
  /** Set false only for routes Nextcloud exempts from CSRF (avatar GETs). */
  csrf?: boolean;
  /** Only register under v2 (and not v1). */
  v2Only?: boolean;
  params?: S;
  /** One-line description for the API document. */
  summary?: string;
  /**
   * The capability the contract names as required: while it is not advertised, the route does
   * not exist (Nextcloud's 404 for unknown routes), as the contract's general rules say.
   */
  capability?: string;
  /**
   * Statuses this route answers besides the ones derived from its definition (200, and 400, 401,
   * 403, 404, 429 where its parameters, auth and path make them possible), each with what it
   * means; for the API document. A status given here with a schema answers that `data`.
   */
  statuses?: Record<number, string | { description: string; schema: TSchema }>;
  /**
   * The route works on a conversation kept here for a host elsewhere (Talk's FederationSupported):
   * `forwarded` to the host, or `local` (what is the user's own here: marks, sessions, the
   * record). Without it, a participant of such a conversation gets 406
   * (docs/federation.md#the-proxied-conversation).
   */
  federation?: 'forwarded' | 'local';
  /** Media types of a raw (non-OCS) success answer, for the API document (avatar images). */
  rawContent?: string[];
  /** Schema of the OCS `data` payload on success, for the API document (GET /openapi.json). */
  response?: TSchema;
  /**
   * Keep the rendered answer and send it again while nothing it was computed from changed
   * (cached-answer.ts; the store, key and what the handler names are in docs/architecture.md
   * "Caches across processes"). The handler is written as for any route and may return a
   * `KeptReply` naming the answer's topics and expiry.
   */
  cache?: RouteCache<S extends TObject ? Static<S> : Record<string, unknown>>;
  handler: (call: OcsCall<S extends TObject ? Static<S> : Record<string, unknown>>) => Promise<unknown>;
}

const NOT_FOUND_MESSAGE =
  'Invalid query, please check the syntax. API specifications are here: http://www.freedesktop.org/wiki/Specifications/open-collaboration-services.\n';

/** Nextcloud's answer for a route that does not exist (OCS 998 on v1, 404 on v2). */
export function sendRouteNotFound(reply: FastifyReply, version: OcsVersion, format: OcsFormat): FastifyReply {
  const r = renderOcs(version, format, 404, [], NOT_FOUND_MESSAGE, version === 1 ? 998 : 404);
  return reply
    .code(r.httpStatus)
    .type(format === 'json' ? 'application/json; charset=utf-8' : 'text/xml; charset=UTF-8')
    .send(r.body);
}

export function sendOcsError(reply: FastifyReply, version: OcsVersion, format: OcsFormat, err: ApiError): FastifyReply {
  const r = renderOcs(version, format, err.status, err.data, err.ocsMessage, err.ocsCode);
  if (err.headers) for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.code(r.httpStatus).type(r.contentType).send(r.body);
}

/**
 * Builds the request context: Basic auth, else the browser login session cookie of Parley's web
 * pages (CSRF still applies: OCS routes need OCS-APIRequest), else anonymous; plus the guest's
 * cookie session key when the request carries one.
 */
export async function buildContext(services: Services, request: FastifyRequest): Promise<RequestContext> {
  // A connection closed before its request was handled has no client address (for example a
  // body sent without Content-Length, read as a malformed next request): nobody can read the
  // answer, and nothing may run outside the brute-force throttle, which counts per address.
  if (!request.ip) {
    // Logged, since its answer goes nowhere and so no request line is written for it.
    request.log.info('connection closed before the request was handled');
    throw badRequest('connection', 'The connection closed before the request was handled');
  }
  const header = request.headers.authorization;
  let user;
  let appPasswordId: number | undefined;
  let federated: { cloudId: string; secret: string } | undefined;
  if (header !== undefined && header !== '' && request.headers['x-nextcloud-federation'] !== undefined) {
    // Another server's user in a conversation here: checked when the conversation is looked up.
    federated = proxiedCredentials(header);
    if (!federated) throw notLoggedIn();
  } else if (header !== undefined && header !== '') {
    const authed = await services.auth.authenticate(header, request.ip);
    user = authed.user;
    appPasswordId = authed.appPasswordId;
  } else {
    user = await loginSessionUser(request, services);
  }
  const ctx = new RequestContext(services.directory, services.appConfig, user, request.ip, appPasswordId, request.headers);
  if (federated) ctx.federated = federated;
  // A join binds the Talk-session cookie to this login (client-sessions.ts).
  if (user && (header === undefined || header === '')) ctx.loginSessionKey = readCookie(request, LOGIN_COOKIE);
  // A well-formed `parley_session` cookie goes on the context without a query: services look it
  // up only when they need it, so endpoints that do not care pay nothing.
  const guestKey = sessionKeyFromCookie(request.headers.cookie);
  if (guestKey) ctx.guestSessionKey = guestKey;
  return ctx;
}

function csrfPasses(request: FastifyRequest): boolean {
  const h = request.headers['ocs-apirequest'];
  if (typeof h === 'string' && h.trim() !== '') return true;
  const auth = request.headers.authorization;
  return typeof auth === 'string' && /^Bearer\s/i.test(auth);
}

export function ocsRoute<S extends TObject | undefined>(app: FastifyInstance, services: Services, def: OcsRouteDef<S>): void {
  const coerce = compileParams<any>(def.params);
  // The route exists only while its capability is advertised (undefined: always).
  const gate = def.capability ? featureCondition(def.capability) : undefined;
  const handler = def.cache ? keptAnswers(services.renderedAnswers, def.cache, def.handler) : def.handler;
  // One handler per prefix, so the envelope version is known without reading the URL.
  const handlerFor = (version: OcsVersion) => async (request: FastifyRequest, reply: FastifyReply) => {
    const bag = mergeParams(request.query, request.body, request.params);
    const format = negotiateFormat(bag.format, request.headers.accept);
    try {
      if (gate && !gate(await services.appConfig.snapshot())) {
        return sendRouteNotFound(reply, version, format);
      }
      if (def.csrf !== false && !csrfPasses(request)) {
        return reply.code(412).type('application/json; charset=utf-8').send('{"message":"CSRF check failed"}');
      }
      const ctx = await buildContext(services, request);
      ctx.proxiedRoomsSupported = def.federation !== undefined;
      (request as any).parleyUser = ctx.userId;
      if (def.auth !== 'public' && !ctx.user) throw notLoggedIn();
      if (def.auth === 'admin' && !(await ctx.isAdmin())) throw adminRequired();
      if (def.talk && !(await ctx.canUseTalk())) throw forbidden('allowed_groups', 'You are not allowed to use Talk');
      const params = coerce(bag);
      const result = await handler({ params, ctx, version, format, request, reply });
      if (reply.sent) return reply;
      if (result instanceof RawReply) {
        for (const [k, v] of Object.entries(result.headers)) reply.header(k, v);
        return reply.code(result.status).type(result.contentType).send(result.body);
      }
      const out = result instanceof OcsReply ? result : new OcsReply(result);
      for (const [k, v] of Object.entries(out.headers)) reply.header(k, v);
      const r = renderOcs(version, format, out.status, out.data);
      return reply.code(r.httpStatus).type(r.contentType).send(r.body);
    } catch (err) {
      if (err instanceof ApiError) return sendOcsError(reply, version, format, err);
      request.log.error({ err }, 'unhandled error');
      return sendOcsError(reply, version, format, new ApiError(500, { error: 'internal' }, 'Internal Server Error'));
    }
  };
  const prefixes = def.v2Only ? ['/ocs/v2.php'] : ['/ocs/v2.php', '/ocs/v1.php'];
  for (const prefix of prefixes) {
    app.route({
      method: def.method,
      url: prefix + def.path,
      handler: handlerFor(prefix === '/ocs/v1.php' ? 1 : 2),
      config: { ocs: { auth: def.auth, summary: def.summary, params: def.params } },
    });
  }
  app.ocsRoutes.push(def as OcsRouteDef<any>);
}
