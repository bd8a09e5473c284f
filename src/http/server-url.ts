/** The server's public address as clients must store it (login flows, notification links). */
import type { Services } from '../services/index.js';

/**
 * The address clients store: the configured one (BASE_URL, or the address HOST and PORT name),
 * never the request's Host or X-Forwarded-Host. A Host is only ever checked (trusted-hosts.ts):
 * building URLs from it let anybody choose the address a login flow hands out
 * (docs/reference/accounts-and-login.md#login-flow-v1), and a
 * Host of `evil.example&user:admin` could inject fields into the v1 `nc://` redirect.
 */
export function serverUrl(services: Services): string {
  return services.settings.baseUrl;
}
