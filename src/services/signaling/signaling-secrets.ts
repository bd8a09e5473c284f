/**
 * Generated signaling secrets (contract "Server-wide app configuration": `signaling_ticket_secret`
 * is a 255-character random string; docs/reference/signaling.md#tickets): the ticket secret and the
 * hello v2 key pair of the configured `signaling_token_alg`, created when empty. Called at start
 * (boot.ts) and again when the algorithm changes. Several processes starting together store one
 * value: the insert keeps whatever was stored first.
 */
import { generateKeyPairSync } from 'node:crypto';
import { randomString } from '../../domain/passwords.js';
import { tokenAlgOf, tokenKeyNames, type TokenAlg } from '../../domain/signaling.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import type { AppConfigService } from '../platform/app-config.js';

/** A new key pair in Talk's storage form: PEM for ES/RS; libsodium-style base64 for EdDSA. */
function generateTokenKeyPair(alg: TokenAlg): { priv: string; pub: string } {
  if (alg === 'EdDSA') {
    const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' });
    const seed = Buffer.from(jwk.d!, 'base64url');
    const pub = Buffer.from(jwk.x!, 'base64url');
    return { priv: Buffer.concat([seed, pub]).toString('base64'), pub: pub.toString('base64') };
  }
  const pair = alg.startsWith('ES')
    ? generateKeyPairSync('ec', { namedCurve: alg === 'ES256' ? 'P-256' : 'P-384' })
    : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    priv: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    pub: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** Whether either half of the configured algorithm's key pair is unset. */
function keyPairMissing(cfg: AppConfigSnapshot): boolean {
  const names = tokenKeyNames(tokenAlgOf(cfg));
  return (cfg.raw(names.priv) ?? '') === '' || (cfg.raw(names.pub) ?? '') === '';
}

/** Whether `signaling_ticket_secret` or the configured key pair still has to be generated. */
export function signalingSecretsMissing(cfg: AppConfigSnapshot): boolean {
  return cfg.get('signaling_ticket_secret') === '' || keyPairMissing(cfg);
}

/** Generates `signaling_ticket_secret` and the key pair of the configured algorithm when missing. */
export async function ensureSignalingSecrets(appConfig: AppConfigService): Promise<void> {
  const cfg = await appConfig.snapshot();
  const missing: Array<{ key: string; value: string }> = [];
  if (cfg.get('signaling_ticket_secret') === '') missing.push({ key: 'signaling_ticket_secret', value: randomString(255) });
  const alg = tokenAlgOf(cfg);
  const names = tokenKeyNames(alg);
  if (keyPairMissing(cfg)) {
    // Both halves of one pair go in together; a half-stored pair (never written by Parley) is replaced.
    const pair = generateTokenKeyPair(alg);
    if ((cfg.raw(names.priv) ?? '') !== '' || (cfg.raw(names.pub) ?? '') !== '') {
      await appConfig.setMany([
        { key: names.priv, value: pair.priv },
        { key: names.pub, value: pair.pub },
      ]);
    } else {
      missing.push({ key: names.priv, value: pair.priv }, { key: names.pub, value: pair.pub });
    }
  }
  await appConfig.setIfAbsent(missing);
}
