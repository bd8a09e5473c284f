/** The server's public address as clients must store it (login flows, notification links). */
import type { FastifyRequest } from 'fastify';
import type { Services } from '../services/index.js';

/**
 * The address clients store: BASE_URL when set; otherwise the request's scheme and host
 * (X-Forwarded-Proto / X-Forwarded-Ssl honoured, as Nextcloud does for §7.2).
 */
export function serverUrl(services: Services, request: FastifyRequest): string {
  if (services.settings.baseUrlGiven) return services.settings.baseUrl;
  const fwd = String(request.headers['x-forwarded-proto'] ?? '')
    .split(',')[0]
    .trim()
    .toLowerCase();
  const https = fwd === 'https' || String(request.headers['x-forwarded-ssl'] ?? '').toLowerCase() === 'on';
  return `${https ? 'https' : request.protocol}://${request.headers.host ?? 'localhost'}`;
}
