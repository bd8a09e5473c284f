/** The server's public address as clients must store it (login flows, notification links). */
import type { FastifyRequest } from 'fastify';
import type { Services } from '../services/index.js';

/**
 * The address clients store: BASE_URL when set; otherwise the request's scheme and host.
 * Fastify takes X-Forwarded-Proto and X-Forwarded-Host into `protocol` and `host` only from a
 * connection of a trusted proxy (TRUSTED_PROXIES), as Nextcloud's IRequest does with its
 * `trusted_proxies`: anybody else could otherwise choose the address a login flow hands out
 * (§7.2) and whether its cookie is Secure.
 */
export function serverUrl(services: Services, request: FastifyRequest): string {
  if (services.settings.baseUrlGiven) return services.settings.baseUrl;
  return `${request.protocol}://${request.host || 'localhost'}`;
}
