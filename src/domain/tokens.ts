/**
 * Conversation tokens and attendee PINs (docs/reference/constants.md#generated-identifiers, docs/reference/constants.md#tokens-and-limits).
 * Random draws come from node:crypto's randomInt (a secure source); uniqueness is checked by
 * the caller through `isTaken`.
 */
import { randomInt } from 'node:crypto';
import { TOKEN_PATTERN } from './constants.js';

export const TOKEN_ALPHABET = 'abcdefghijkmnopqrstuvwxyz23456789';
export const RESERVED_TOKENS: readonly string[] = ['settings', 'backend'];
export const PIN_LENGTH = 7;

/** Digits where the first is never 0 and no digit equals the one before it. */
export function randomSipDigits(length: number): string {
  let out = '';
  let previous = '0';
  for (let i = 0; i < length; i++) {
    const choices = '0123456789'.replace(previous, '');
    const d = choices[randomInt(choices.length)];
    out += d;
    previous = d;
  }
  return out;
}

/** One candidate token (not yet checked for uniqueness). */
export function randomToken(entropy: number, sip: boolean): string {
  if (sip) return randomSipDigits(Math.max(10, entropy));
  const length = Math.max(8, entropy);
  let out = '';
  for (let i = 0; i < length; i++) out += TOKEN_ALPHABET[randomInt(TOKEN_ALPHABET.length)];
  return out;
}

/**
 * A new unique token: draws until one is neither reserved nor taken. `entropy` is app config
 * `token_entropy`; `sip` is "SIP configured" (then tokens are numeric and SIP compatible).
 */
export async function newToken(entropy: number, sip: boolean, isTaken: (token: string) => Promise<boolean>): Promise<string> {
  for (;;) {
    const token = randomToken(entropy, sip);
    if (RESERVED_TOKENS.includes(token)) continue;
    if (!(await isTaken(token))) return token;
  }
}

/** SIP can only be enabled for digits-only tokens without a leading 0 or a repeated adjacent digit. */
export function isSipCompatibleToken(token: string): boolean {
  return !/((\d)(?=\2+)|^0|\D)/.test(token);
}

/** A 7-digit dial-in PIN (same digit scheme as numeric tokens; no uniqueness, as Talk). */
export function newAttendeePin(): string {
  return randomSipDigits(PIN_LENGTH);
}

/** The route constraint: anything else is answered exactly like an unknown conversation. */
export function isWellFormedToken(token: unknown): token is string {
  return typeof token === 'string' && TOKEN_PATTERN.test(token);
}
