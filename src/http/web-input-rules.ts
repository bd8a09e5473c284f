/**
 * The input rules of the OCS layer for every route outside it (avatars, login flows, web pages,
 * metrics, and whatever is added later): a NUL byte in a path placeholder, the query or a parsed
 * body is a 400 naming the field before the handler runs, so no such value reaches the database
 * (PostgreSQL refuses NUL in text and would answer 500; SQLite would store or miss it). Malformed
 * percent-encoding in the path is refused by the router already (frameworkErrors in server.ts);
 * in the query or a form it stays as the literal text, which both databases take.
 * docs/security.md "Bad input".
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refuseNulBytes } from './ocs/params.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route outside /ocs/ (method and URL), in registration order (tests enumerate them). */
    webRoutes: Array<{ method: string; url: string }>;
  }
}

const isOcs = (url: string) => url.startsWith('/ocs/');

function checkBag(value: unknown): void {
  if (value && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value)) refuseNulBytes(value as Record<string, unknown>);
}

/** Registers the rules; call before the route modules so that their routes are listed. */
export function registerWebInputRules(app: FastifyInstance): void {
  app.decorate('webRoutes', [] as Array<{ method: string; url: string }>);
  app.addHook('onRoute', (route) => {
    if (isOcs(route.url)) return;
    for (const method of [route.method].flat()) if (method !== 'HEAD') app.webRoutes.push({ method, url: route.url });
  });
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    if (isOcs(request.url)) return done();
    try {
      checkBag(request.params);
      checkBag(request.query);
      checkBag(request.body);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
}
