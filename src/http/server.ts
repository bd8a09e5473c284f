/**
 * buildServer(services): the Fastify instance used by `serve` and by tests. Registers body
 * parsers (JSON, PHP-style forms, anything else ignored), the OCS not-found answer, the error
 * handler and every route module.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from 'fastify';
import { ApiError, payloadTooLarge } from '../domain/errors.js';
import { afterFreshReads } from '../db/database.js';
import type { Services } from '../services/index.js';
import { negotiateFormat, versionFromUrl } from './ocs/envelope.js';
import { parsePhpQuery } from './ocs/php-form.js';
import { sendOcsError, sendRouteNotFound, type OcsRouteDef } from './ocs/route.js';
import { routeModules } from './routes/index.js';
import { registerLoadShedding } from './load-shedding.js';
import { registerWebInputRules } from './web-input-rules.js';
import { registerTrustedHosts } from './trusted-hosts.js';
import { lazyChildLoggerFactory } from '../log.js';

export interface BuildOptions {
  /** Log requests through services.log (off in tests unless asked). */
  logger?: boolean;
}

export async function buildServer(services: Services, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    // request.log becomes a pino child only when a request writes a line (src/log.ts LazyChildLogger).
    ...(opts.logger === false ? { logger: false } : { loggerInstance: services.log, childLoggerFactory: lazyChildLoggerFactory as never }),
    // Fastify's own request lines are off: the onResponse hook below writes one line per request.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 25 * 1024 * 1024,
    // request.ip is the client named by X-Forwarded-For only when the connection comes from a
    // trusted proxy (TRUSTED_PROXIES): behind a proxy every client would otherwise share its
    // address, and one client's wrong passwords would throttle everybody.
    trustProxy: services.settings.trustedProxies.length > 0 ? services.settings.trustedProxies : false,
    // Path placeholders up to 1000 characters reach the routes, whose schemas name the bad field;
    // past that (and for malformed URLs) frameworkErrors answers in the envelope with a reason.
    routerOptions: { querystringParser: (s: string) => parsePhpQuery(s), ignoreTrailingSlash: true, maxParamLength: 1000 },
    frameworkErrors: (err, request, reply) => {
      const apiErr =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new ApiError(414, { error: 'request', message: 'A path segment is too long' })
          : new ApiError(400, { error: 'request', message: 'The request URL is malformed' });
      // Fastify expects nothing back from frameworkErrors (a reply is thenable): send, return nothing.
      if (!request.url.startsWith('/ocs/')) {
        (reply as FastifyReply).code(apiErr.status).send(apiErr.data);
        return;
      }
      // The query string is not parsed yet when routing fails.
      const at = request.url.indexOf('?');
      const format = at >= 0 ? parsePhpQuery(request.url.slice(at + 1)).format : undefined;
      sendOcsError(reply, versionFromUrl(request.url), negotiateFormat(format, request.headers.accept), apiErr);
    },
    requestIdHeader: 'x-request-id',
  }) as unknown as FastifyInstance;
  app.decorate('ocsRoutes', [] as OcsRouteDef<any>[]);

  // JSON: an empty body is an empty bag (clients send Content-Type on bodiless DELETEs).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = String(body ?? '');
    // Signed requests (the signaling backend API) need the exact bytes the checksum covers.
    (req as { rawBody?: string }).rawBody = text;
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError(400, { error: 'body', message: 'The request body is not valid JSON' }), undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, parsePhpQuery(String(body ?? '')));
  });
  // Anything else is not request data (Nextcloud ignores it); multipart is added by the avatar area.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => done(null, {}));

  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith('/ocs/')) {
      const version = versionFromUrl(request.url);
      const q = request.query as Record<string, unknown> | undefined;
      const format = negotiateFormat(q?.format, undefined, false);
      return sendRouteNotFound(reply, version, format);
    }
    return reply.code(404).type('application/json; charset=utf-8').send({ message: 'Not found' });
  });

  app.setErrorHandler((err: any, request, reply) => {
    const isOcs = request.url.startsWith('/ocs/');
    let apiErr: ApiError;
    if (err instanceof ApiError) apiErr = err;
    else if (err?.statusCode === 413 || err?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') apiErr = payloadTooLarge('body', 'The request body is too large');
    else if (typeof err?.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      apiErr = new ApiError(err.statusCode, { error: 'request', message: String(err.message ?? 'Bad request') });
    } else {
      request.log.error({ err }, 'unhandled error');
      apiErr = new ApiError(500, { error: 'internal' }, 'Internal Server Error');
    }
    if (isOcs) {
      const q = request.query as Record<string, unknown> | undefined;
      return sendOcsError(reply, versionFromUrl(request.url), negotiateFormat(q?.format, request.headers.accept), apiErr);
    }
    return reply.code(apiErr.status).send(apiErr.data);
  });

  // Past capacity, shed at once (before the hooks below and any route work).
  const pressure = registerLoadShedding(app, services.settings.overload, services.db);
  if (pressure) {
    const remove = services.metrics.addFamily(pressure);
    app.addHook('onClose', async () => remove());
  }

  // A Host the server was not set up for is refused before any database work.
  registerTrustedHosts(app, services.settings);

  // Each request's cached hot reads use a change stamp read after it arrived (SQLite), or wait
  // until this process has heard every commit made before it arrived (PostgreSQL, one round trip
  // through the LISTEN connection; cache/direct-reads.ts), so a request sees every commit made, by
  // any process, before it started; requests arriving together share one reading or round trip.
  // The health check reads nothing (load balancers call it often): it goes on at once.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.url === '/status.php') return done();
    afterFreshReads(services.db.kysely, done);
  });

  // One JSON line per request; never the query string (it may carry passwords).
  app.addHook('onResponse', async (request, reply) => {
    // Unmatched URLs share one label so scanners cannot blow up the metric series.
    services.metrics.recordRequest(request.method, request.routeOptions?.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions?.url ?? 'unknown',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        user: (request as any).parleyUser ?? null,
      },
      'request',
    );
  });

  registerWebInputRules(app);
  for (const register of routeModules) await register(app, services);
  return app;
}
