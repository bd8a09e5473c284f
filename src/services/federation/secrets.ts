/** Shared secrets of federated attendees and invitations: made random, compared in constant time, never logged. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomString } from '../../domain/passwords.js';
import { parseCloudId } from '../../domain/federation/cloud-id.js';
import { parseBasic } from '../accounts/auth.js';

/** A fresh per-attendee shared secret (64 alphanumerics). */
export function newSharedSecret(): string {
  return randomString(64);
}

export function sameSecret(a: string | null | undefined, b: string): boolean {
  if (!a) return false;
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

/**
 * The credentials of a proxied request (docs/reference/federation.md#proxied-requests): Basic with
 * the URL-encoded cloud id as user name and the shared secret as password; undefined when the
 * header is not that.
 */
export function proxiedCredentials(header: string): { cloudId: string; secret: string } | undefined {
  const creds = parseBasic(header);
  if (!creds || creds.password === '' || creds.password.length > 255) return undefined;
  let login: string;
  try {
    login = decodeURIComponent(creds.login);
  } catch {
    return undefined;
  }
  const cloud = parseCloudId(login);
  return cloud ? { cloudId: cloud.id, secret: creds.password } : undefined;
}
