/**
 * Web Push rules of the notifications app (WebPushClient, WebPushController): what a
 * subscription's keys and endpoint must look like, and which notifications its app types take.
 * Pure.
 */
import net from 'node:net';

/** base64url (padding tolerated) to bytes, or undefined when it is not base64url. */
function fromBase64Url(value: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(value)) return undefined;
  return Buffer.from(value.replace(/=+$/, ''), 'base64url');
}

/** An uncompressed P-256 public key (65 bytes starting with 4), base64url (RFC 8291 `p256dh`). */
export function isP256dh(value: string): boolean {
  const b = fromBase64Url(value);
  return b !== undefined && b.length === 65 && b[0] === 4;
}

/** A 16-byte authentication secret, base64url (RFC 8291 `auth`). */
export function isAuthSecret(value: string): boolean {
  const b = fromBase64Url(value);
  return b !== undefined && b.length === 16;
}

/** Private, loopback and link-local address literals: never an endpoint (another server's push service is public). */
export function isInternalAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (net.isIPv4(h)) {
    const [a, b] = h.split('.').map(Number);
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  if (net.isIPv6(h)) return h === '::1' || h === '::' || /^f[cd]/i.test(h) || /^fe[89ab]/i.test(h) || /^::ffff:/i.test(h);
  return h === 'localhost' || h.endsWith('.localhost');
}

/**
 * A push service endpoint: a URL of at most 1000 characters, https to a host that is not an
 * internal address literal; with `allowInsecure` (tests) also http to loopback.
 */
export function isWebPushEndpoint(value: string, allowInsecure: boolean): boolean {
  if (value.length > 1000) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || host === '::1' || (net.isIPv4(host) && host.startsWith('127.'));
  if (allowInsecure && loopback) return url.protocol === 'http:' || url.protocol === 'https:';
  return url.protocol === 'https:' && !isInternalAddress(url.hostname);
}

/**
 * Whether a subscription with these app types takes a notification of `app`: its types name
 * the app, or `all` without `-app` (WebPushController's filter).
 */
export function webPushAllows(appTypes: string, app: string): boolean {
  const types = appTypes.split(',').map((t) => t.trim());
  if (types.includes(`-${app}`)) return false;
  return types.includes(app) || types.includes('all');
}
