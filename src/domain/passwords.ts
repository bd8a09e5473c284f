/** Password hashing (argon2id) and random secrets. */
import { randomBytes, randomInt, hash as digest } from 'node:crypto';
import { hash, verify, Algorithm } from '@node-rs/argon2';

export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: Algorithm.Argon2id });
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  if (!stored) return false;
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** One-shot digest (no Hash object): it runs on every authenticated request (credential cache key). */
export function sha256Hex(s: string): string {
  return digest('sha256', s, 'hex');
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random string from `alphabet`, uniformly chosen with a secure source. */
export function randomString(length: number, alphabet = ALNUM): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** 72 characters, as Nextcloud app passwords. */
export function newAppPassword(): string {
  return randomString(72);
}

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}
