/** Shared secrets of federated attendees and invitations: made random, compared in constant time, never logged. */
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomString } from '../../domain/passwords.js';

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
