/**
 * The signaling secrets Talk generates on first use (contract "Authentication" 6 and the app
 * config rows `signaling_ticket_secret`, `signaling_token_alg`, `signaling_token_privkey_*`,
 * `signaling_token_pubkey_*`): a 255-character random ticket secret and a key pair of the
 * configured algorithm, stored as Talk stores them (keys suffixed with the lower-case algorithm;
 * PEM for ES and RS keys, base64 of libsodium's secret and public key for EdDSA). Generated at
 * start when missing; a stored value is never replaced. The secret and the private key are
 * `secret` keys in the registry, so the API only ever shows them masked.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { randomString } from '../domain/passwords.js';
import type { AppConfigService } from './app-config.js';

/** Talk's ticket secret length (contract Limits). */
export const TICKET_SECRET_LENGTH = 255;
const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A key pair as Talk stores it for `alg`. */
export function signalingKeyPair(alg: string): { privateKey: string; publicKey: string } {
  const pem = (pair: { privateKey: KeyObject; publicKey: KeyObject }) => ({
    privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  });
  switch (alg) {
    case 'ES256':
      return pem(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }));
    case 'ES384':
      return pem(generateKeyPairSync('ec', { namedCurve: 'secp384r1' }));
    case 'RS256':
    case 'RS384':
    case 'RS512':
      return pem(generateKeyPairSync('rsa', { modulusLength: 2048 }));
    case 'EdDSA': {
      // libsodium's crypto_sign_keypair: secret key = 32-byte seed followed by the public key.
      const { privateKey, publicKey } = generateKeyPairSync('ed25519');
      const jwk = privateKey.export({ format: 'jwk' });
      const seed = Buffer.from(jwk.d!, 'base64url');
      const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
      return { privateKey: Buffer.concat([seed, pub]).toString('base64'), publicKey: pub.toString('base64') };
    }
    default:
      throw new Error(`unknown signaling_token_alg ${alg}`);
  }
}

/** Generates whatever of the ticket secret and the current algorithm's key pair is missing. */
export async function ensureSignalingSecrets(appConfig: AppConfigService): Promise<void> {
  const cfg = await appConfig.snapshot();
  const alg = cfg.get('signaling_token_alg') || 'ES256';
  const suffix = alg.toLowerCase();
  const missing: Array<{ key: string; value: string }> = [];
  if (!cfg.raw('signaling_ticket_secret')) missing.push({ key: 'signaling_ticket_secret', value: randomString(TICKET_SECRET_LENGTH, SECRET_ALPHABET) });
  if (!cfg.raw(`signaling_token_privkey_${suffix}`) || !cfg.raw(`signaling_token_pubkey_${suffix}`)) {
    const pair = signalingKeyPair(alg);
    missing.push({ key: `signaling_token_privkey_${suffix}`, value: pair.privateKey }, { key: `signaling_token_pubkey_${suffix}`, value: pair.publicKey });
  }
  if (missing.length) await appConfig.setMissing(missing);
}
