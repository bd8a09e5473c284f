/** Password hashing (argon2id) and random secrets. */
import { randomBytes, randomInt, createHash } from 'node:crypto';
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

export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
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
