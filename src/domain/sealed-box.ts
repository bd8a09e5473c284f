/**
 * Handing a secret from the browser half of Login Flow v2 to the polling client without ever
 * storing it readably (docs/reference/accounts-and-login.md#login-flow-v2: Nextcloud keeps an RSA key pair whose private
 * key is encrypted with the poll token). Here: an X25519 key pair per flow; the private key is
 * sealed with a key derived from the poll token, which is never stored (only its hash), so a
 * database dump cannot recover a granted app password. Pure; node:crypto only.
 */
import { createCipheriv, createDecipheriv, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, hash, randomBytes } from 'node:crypto';

const IV = 12;
const TAG = 16;

function keyFrom(label: string, secret: Buffer | string): Buffer {
  return hash('sha256', Buffer.concat([Buffer.from(label + '\0'), Buffer.isBuffer(secret) ? secret : Buffer.from(secret)]), 'buffer');
}

function encrypt(key: Buffer, plain: Buffer): Buffer {
  const iv = randomBytes(IV);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]);
}

function decrypt(key: Buffer, box: Buffer): Buffer {
  const d = createDecipheriv('aes-256-gcm', key, box.subarray(0, IV));
  d.setAuthTag(box.subarray(IV, IV + TAG));
  return Buffer.concat([d.update(box.subarray(IV + TAG)), d.final()]);
}

export interface Recipient {
  /** base64 SPKI DER of the public key (stored). */
  publicKey: string;
  /** base64 of the private key, encrypted with a key derived from `secret` (stored). */
  sealedPrivateKey: string;
}

/** A key pair whose private half only the holder of `secret` can use. */
export function newRecipient(secret: string): Recipient {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  const priv = privateKey.export({ type: 'pkcs8', format: 'der' });
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    sealedPrivateKey: encrypt(keyFrom('private-key', secret), priv).toString('base64'),
  };
}

/** Encrypts `plain` for the recipient's public key (ephemeral X25519 + AES-256-GCM). */
export function seal(recipientPublicKey: string, plain: string): string {
  const eph = generateKeyPairSync('x25519');
  const pub = createPublicKey({ key: Buffer.from(recipientPublicKey, 'base64'), type: 'spki', format: 'der' });
  const shared = diffieHellman({ privateKey: eph.privateKey, publicKey: pub });
  const ephPub = eph.publicKey.export({ type: 'spki', format: 'der' });
  const box = encrypt(keyFrom('box', shared), Buffer.from(plain, 'utf8'));
  return Buffer.concat([Buffer.from([ephPub.length]), ephPub, box]).toString('base64');
}

/** Opens a sealed box with the recipient's secret; undefined when anything does not match. */
export function open(sealedPrivateKey: string, secret: string, sealed: string): string | undefined {
  try {
    const priv = createPrivateKey({ key: decrypt(keyFrom('private-key', secret), Buffer.from(sealedPrivateKey, 'base64')), type: 'pkcs8', format: 'der' });
    const raw = Buffer.from(sealed, 'base64');
    const n = raw[0];
    const ephPub = createPublicKey({ key: raw.subarray(1, 1 + n), type: 'spki', format: 'der' });
    const shared = diffieHellman({ privateKey: priv, publicKey: ephPub });
    return decrypt(keyFrom('box', shared), raw.subarray(1 + n)).toString('utf8');
  } catch {
    return undefined;
  }
}
