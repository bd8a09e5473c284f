/**
 * Which Host a request may name (docs/security.md "Trusted domains"), the rule of Nextcloud's
 * lib/private/Security/TrustedDomainHelper.php: loopback names are always trusted; otherwise
 * the host must be the configured address's or match a TRUSTED_DOMAINS entry, where `*` stands
 * for any run of letters, digits, dots and dashes and an entry matches the host with or without
 * its port. Pure: no I/O.
 */

/** The loopback names every server answers to (Nextcloud's Request::REGEX_LOCALHOST). */
const LOOPBACK = /^(127\.0\.0\.1|localhost|\[::1\])$/i;

/** `host` without a numeric `:port` suffix (`[::1]:8080` → `[::1]`, `example.org` unchanged). */
export function hostWithoutPort(host: string): string {
  const at = host.lastIndexOf(':');
  if (at < 0 || host.endsWith(']')) return host;
  return /^\d+$/.test(host.slice(at + 1)) ? host.slice(0, at) : host;
}

/** An entry's pattern: the entry's text literally, each `*` any run of [-.a-zA-Z0-9]. */
function entryPattern(entry: string): RegExp {
  const quoted = entry.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return new RegExp(`^${quoted.join('[-.a-zA-Z0-9]*')}$`, 'i');
}

export interface TrustedDomains {
  /** Whether a request naming `host` (the Host header, or a trusted proxy's X-Forwarded-Host) is served. */
  allows(host: string): boolean;
}

/**
 * The rule for a server whose configured address is `baseUrl` (BASE_URL, or the address derived
 * from HOST and PORT) with the extra TRUSTED_DOMAINS `entries`.
 */
export function trustedDomains(baseUrl: string, entries: readonly string[]): TrustedDomains {
  const own = new URL(baseUrl).hostname.toLowerCase();
  const patterns = entries.map(entryPattern);
  return {
    allows(host: string): boolean {
      const withPort = host.trim().toLowerCase();
      const domain = hostWithoutPort(withPort);
      if (LOOPBACK.test(domain)) return true;
      // Malformed names are refused whatever the list says (as Nextcloud does).
      if (domain === '' || domain.startsWith('-') || domain.includes('..')) return false;
      if (domain === own) return true;
      return patterns.some((p) => p.test(domain) || p.test(withPort));
    },
  };
}
