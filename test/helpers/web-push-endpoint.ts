/**
 * A stand-in for a browser's push service on loopback, and the browser's side of RFC 8291:
 * a subscription's key pair and auth secret, and the decryption of an `aes128gcm` message
 * (RFC 8188 record, keys derived with ECDH and HKDF) written here with node:crypto alone.
 */
import http from 'node:http';
import { createDecipheriv, createECDH, hkdfSync, randomBytes, type ECDH } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface Browser {
  ecdh: ECDH;
  /** base64url of the uncompressed public key (`p256dh`). */
  p256dh: string;
  /** base64url of the 16-byte auth secret. */
  auth: string;
}

export function newBrowser(): Browser {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { ecdh, p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

/** RFC 8291 §3.4 / RFC 8188 §2: one record of an aes128gcm body, decrypted for `browser`. */
export function decryptAes128gcm(browser: Browser, body: Buffer): string {
  const salt = body.subarray(0, 16);
  const idlen = body[20];
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  const uaPublic = browser.ecdh.getPublicKey();
  const ecdhSecret = browser.ecdh.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, Buffer.from(browser.auth, 'base64url'), keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const plain = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 2, then zero padding.
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Error('no last-record delimiter');
  return plain.subarray(0, end).toString('utf8');
}

export interface PushMessage {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface StandInPushService {
  url: string;
  messages: PushMessage[];
  /** The status the next messages are answered with. */
  status: number;
  close(): Promise<void>;
}

export async function startPushService(): Promise<StandInPushService> {
  const service: StandInPushService = { url: '', messages: [], status: 201, close: () => new Promise((r) => server.close(() => r())) };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (service.status < 300) service.messages.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(service.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return service;
}
