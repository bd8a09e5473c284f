/**
 * A stand-in for Nextcloud's push proxy on loopback: a real HTTP server that takes
 * `POST /notifications` as the notifications app sends it (form field `notifications[i]`, each
 * a JSON object), and, for devices it was told about, checks the signature with the account's
 * public key and decrypts the subject with the device's private key, as a phone does.
 */
import http from 'node:http';
import { constants, createHash, generateKeyPairSync, privateDecrypt, verify, type KeyObject } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/** A phone: its RSA 2048 key pair and push token. */
export interface TestDevice {
  publicKeyPem: string;
  privateKey: KeyObject;
  pushToken: string;
  pushTokenHash: string;
}

export function newDevice(): TestDevice {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pushToken = createHash('sha256').update(Math.random().toString()).digest('hex');
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey,
    pushToken,
    pushTokenHash: createHash('sha512').update(pushToken).digest('hex'),
  };
}

/**
 * RSA PKCS#1 v1.5 decryption (Node refuses that padding for private decryption since
 * CVE-2023-46809): the raw block, then the padding `00 02 <random non-zero> 00` taken off.
 */
export function decryptPkcs1(privateKey: KeyObject, data: Buffer): Buffer {
  const block = privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, data);
  if (block[0] !== 0 || block[1] !== 2) throw new Error('not a PKCS#1 v1.5 encryption block');
  const sep = block.indexOf(0, 2);
  if (sep < 10) throw new Error('bad PKCS#1 padding');
  return block.subarray(sep + 1);
}

export interface ReceivedPush {
  deviceIdentifier: string;
  pushTokenHash: string;
  priority: string;
  type: string;
  /** The decrypted subject (parsed), when the device is known to the proxy. */
  subject?: Record<string, any>;
  /** Whether the signature verified with the account's key. */
  verified?: boolean;
}

export interface StandInProxy {
  url: string;
  /** Every push received, in order. */
  received: ReceivedPush[];
  /** POST requests received (one per batch). */
  posts: number;
  /** Tells the proxy a device (as a phone's registration at the proxy would). */
  know(deviceIdentifier: string, device: TestDevice, userPublicKey: string): void;
  /** The answer to the next posts: a status (and body), or a delay before answering. */
  answer: { status: number; body?: unknown; delayMs?: number };
  /** Device identifiers to answer as `unknown`. */
  unknown: Set<string>;
  close(): Promise<void>;
}

export async function startProxy(): Promise<StandInProxy> {
  const devices = new Map<string, { device: TestDevice; userKey: string }>();
  const proxy: StandInProxy = {
    url: '',
    received: [],
    posts: 0,
    answer: { status: 200 },
    unknown: new Set(),
    know(id, device, userKey) {
      devices.set(id, { device, userKey });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { status, body, delayMs } = proxy.answer;
      const reply = () => {
        if (req.method !== 'POST' || req.url !== '/notifications') {
          res.writeHead(404).end();
          return;
        }
        proxy.posts++;
        const form = new URLSearchParams(Buffer.concat(chunks).toString());
        const unknown: string[] = [];
        for (const [key, value] of form) {
          if (!/^notifications\[\d+\]$/.test(key)) continue;
          const n = JSON.parse(value);
          const push: ReceivedPush = { deviceIdentifier: n.deviceIdentifier, pushTokenHash: n.pushTokenHash, priority: n.priority, type: n.type };
          const known = devices.get(n.deviceIdentifier);
          if (known && status === 200) {
            const encrypted = Buffer.from(n.subject, 'base64');
            push.verified = verify('sha512', encrypted, known.userKey, Buffer.from(n.signature, 'base64'));
            push.subject = JSON.parse(decryptPkcs1(known.device.privateKey, encrypted).toString('utf8'));
          }
          if (proxy.unknown.has(n.deviceIdentifier)) unknown.push(n.deviceIdentifier);
          if (status === 200) proxy.received.push(push);
        }
        res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body ?? { unknown, failed: 0 }));
      };
      if (delayMs) setTimeout(reply, delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
