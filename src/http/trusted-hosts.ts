/**
 * Trusted domains (docs/security.md): a request whose Host (or X-Forwarded-Host, taken only from
 * a TRUSTED_PROXIES connection) is neither the configured address's host, a TRUSTED_DOMAINS entry
 * nor a loopback name is answered 400 before any route work, as Nextcloud's lib/base.php does:
 * `/status.php` with Nextcloud's JSON, OCS requests with an OCS error, anything else with a small
 * page saying what to configure. A request without a Host (HTTP/1.0) names nothing and is
 * served. URLs handed to clients never come from the Host anyway (server-url.ts); the check keeps
 * a server from answering for names it was not set up for (DNS rebinding, cache poisoning).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors.js';
import { trustedDomains } from '../domain/trusted-domains.js';
import type { Settings } from '../settings.js';
import { negotiateFormat, versionFromUrl } from './ocs/envelope.js';
import { sendOcsError } from './ocs/route.js';
import { escapeHtml, page, sendPage } from './pages/html.js';

function advice(host: string): string {
  return `Access through untrusted domain "${host}". If you are the administrator, add it to TRUSTED_DOMAINS or set BASE_URL to the address clients use (docs/operators.md).`;
}

function refuse(request: FastifyRequest, reply: FastifyReply, host: string): FastifyReply {
  const shown = host.slice(0, 255);
  if (request.url === '/status.php' || request.url.startsWith('/status.php?')) {
    return reply.code(400).type('application/json; charset=utf-8').send({ error: 'Trusted domain error.', code: 15 });
  }
  if (request.url.startsWith('/ocs/')) {
    const q = request.query as Record<string, unknown> | undefined;
    return sendOcsError(
      reply,
      versionFromUrl(request.url),
      negotiateFormat(q?.format, request.headers.accept),
      new ApiError(400, { error: 'host', message: advice(shown) }),
    );
  }
  const body = `<main class="narrow">\n<h1>Access through untrusted domain</h1>\n<p class="error" role="alert">${escapeHtml(advice(shown))}</p>\n</main>`;
  return sendPage(reply, 400, page({ title: 'Access through untrusted domain', body }));
}

/** Registers the check as the first onRequest hook after load shedding (before any database work). */
export function registerTrustedHosts(app: FastifyInstance, settings: Settings): void {
  const rule = trustedDomains(settings.baseUrl, settings.trustedDomains);
  app.addHook('onRequest', (request, reply, done) => {
    const host = request.host;
    if (!host || rule.allows(host)) return done();
    request.log.info({ host: host.slice(0, 255), ip: request.ip }, 'request refused: untrusted host');
    refuse(request, reply, host);
  });
}
