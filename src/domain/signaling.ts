/**
 * Pure signaling rules (docs/reference/signaling.md): the signaling mode, TURN REST credentials, the
 * hello v1 ticket, the hello v2 JWT, and the HMAC checksum shared by the signaling server and
 * Parley in both directions.
 */
import { createHmac, createPrivateKey, randomBytes, sign, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { AppConfigSnapshot } from '../app-config/snapshot.js';
import type { PrefixedConfigKey } from '../app-config/registry.js';
import { randomString } from './passwords.js';

export type SignalingMode = 'internal' | 'external';

export interface SignalingServerList {
  servers: Array<{ server: string; verify: boolean }>;
  secret: string;
}

/** `signaling_servers` as stored (`{servers, secret}`; an empty list may be stored as `[]`). */
export function signalingServers(cfg: AppConfigSnapshot): SignalingServerList {
  const v = cfg.json<unknown>('signaling_servers', {});
  const obj = v && typeof v === 'object' && !Array.isArray(v) ? (v as Partial<SignalingServerList>) : {};
  const servers = Array.isArray(obj.servers) ? obj.servers.filter((s) => s && typeof s.server === 'string') : [];
  return { servers, secret: typeof obj.secret === 'string' ? obj.secret : '' };
}

/** docs/reference/signaling.md: external as soon as one signaling server is configured, else internal. */
export function signalingMode(cfg: AppConfigSnapshot): SignalingMode {
  return signalingServers(cfg).servers.length > 0 ? 'external' : 'internal';
}

/** The HTTP base of a signaling server URL (ws→http, wss→https, no trailing slash), docs/reference/signaling.md#notifications-to-the-signaling-server. */
export function signalingHttpBase(server: string): string {
  return server.replace(/^ws(s?):\/\//i, 'http$1://').replace(/\/+$/, '');
}

// ---- TURN (docs/reference/signaling.md#turn-credentials) ----

export interface TurnEntry {
  schemes?: string;
  server: string;
  secret: string;
  protocols?: string;
}

export interface TurnSettings {
  urls: string[];
  username: string;
  credential: string;
}

/**
 * Time-limited TURN credentials (coturn `use-auth-secret`): one username `<expiry>:<random16>`
 * for all servers of a response, credential = base64(HMAC-SHA1(server secret, username)).
 */
export function turnSettings(servers: TurnEntry[], now: number, random = randomString(16)): TurnSettings[] {
  const username = `${now + 86400}:${random}`;
  return servers
    .filter((s) => typeof s?.server === 'string' && s.server !== '' && typeof s.secret === 'string')
    .map((s) => {
      const schemes = (s.schemes || 'turn')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      const protocols = (s.protocols || 'udp,tcp')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      const urls = schemes.flatMap((scheme) => protocols.map((p) => `${scheme}:${s.server}?transport=${p}`));
      return { urls, username, credential: createHmac('sha1', s.secret).update(username).digest('base64') };
    });
}

// ---- hello v1 ticket (docs/reference/signaling.md#tickets) ----

/** `<random16>:<unixtime>:<userId or ''>:<hex HMAC-SHA256(secret, everything before)>`. */
export function signalingTicketV1(secret: string, userId: string, now: number): string {
  const data = `${randomString(16)}:${now}:${userId}`;
  return `${data}:${createHmac('sha256', secret).update(data).digest('hex')}`;
}

/** Whether `ticket` was issued with `secret` for `userId` (Talk checks no expiry either). */
export function validSignalingTicket(secret: string, userId: string, ticket: string): boolean {
  if (secret === '') return false;
  const cut = ticket.lastIndexOf(':');
  if (cut < 0) return false;
  const data = ticket.slice(0, cut);
  const parts = data.split(':');
  if (parts.length < 3 || parts.slice(2).join(':') !== userId) return false;
  return hexEqual(createHmac('sha256', secret).update(data).digest('hex'), ticket.slice(cut + 1));
}

// ---- checksums between Parley and the signaling server (docs/reference/signaling.md#backend-api, docs/reference/signaling.md#notifications-to-the-signaling-server) ----

/** Shortest `Spreed-Signaling-Random` accepted (Talk: 32 characters). */
export const SIGNALING_RANDOM_MIN = 32;

/** The backend API's signature headers, both ways (docs/reference/signaling.md#backend-api, docs/reference/signaling.md#notifications-to-the-signaling-server; lower case as Node reads them). */
export const SIGNALING_RANDOM_HEADER = 'spreed-signaling-random';
export const SIGNALING_CHECKSUM_HEADER = 'spreed-signaling-checksum';

/** Lower-case hex HMAC-SHA256(secret, random + body). */
export function signalingChecksum(secret: string, random: string, body: string): string {
  return createHmac('sha256', secret)
    .update(random + body)
    .digest('hex');
}

export function validSignalingChecksum(secret: string, random: string, checksum: string, body: string): boolean {
  if (secret === '' || random.length < SIGNALING_RANDOM_MIN || checksum === '') return false;
  return hexEqual(signalingChecksum(secret, random, body), checksum.toLowerCase());
}

/** 64 random hex characters for `Spreed-Signaling-Random`. */
export function signalingRandom(): string {
  return randomBytes(32).toString('hex');
}

function hexEqual(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  // timingSafeEqual needs equal lengths; comparing against itself keeps the time independent of the input.
  if (a.length !== b.length) {
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}

// ---- hello v2 JWT (docs/reference/signaling.md#tickets) ----

export const TOKEN_ALGS = ['ES256', 'ES384', 'RS256', 'RS384', 'RS512', 'EdDSA'] as const;
export type TokenAlg = (typeof TOKEN_ALGS)[number];

export function tokenAlgOf(cfg: AppConfigSnapshot): TokenAlg {
  const alg = cfg.get('signaling_token_alg') as TokenAlg;
  return TOKEN_ALGS.includes(alg) ? alg : 'ES256';
}

/** App config key names of the pair for `alg` (Talk: `signaling_token_privkey_es256`, ...). */
export function tokenKeyNames(alg: TokenAlg): { priv: PrefixedConfigKey; pub: PrefixedConfigKey } {
  const suffix = alg.toLowerCase();
  return { priv: `signaling_token_privkey_${suffix}`, pub: `signaling_token_pubkey_${suffix}` } as const;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** The private key object: PEM for ES/RS; for EdDSA libsodium's base64 64-byte secret (seed + public). */
export function tokenPrivateKey(alg: TokenAlg, stored: string): KeyObject {
  if (alg !== 'EdDSA') return createPrivateKey(stored);
  const raw = Buffer.from(stored, 'base64');
  return createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: b64url(raw.subarray(0, 32)), x: b64url(raw.subarray(32, 64)) }, format: 'jwk' });
}

/** A compact JWS (`{"typ":"JWT","alg":…}`) over `claims`. */
export function signJwt(alg: TokenAlg, privateKey: KeyObject, claims: Record<string, unknown>): string {
  const input = `${b64url(JSON.stringify({ typ: 'JWT', alg }))}.${b64url(JSON.stringify(claims))}`;
  const hash = alg === 'EdDSA' ? null : `sha${alg.slice(2)}`;
  // JWS wants ECDSA signatures as raw r||s, not DER.
  const sig = sign(hash, Buffer.from(input), alg.startsWith('ES') ? { key: privateKey, dsaEncoding: 'ieee-p1363' } : privateKey);
  return `${input}.${b64url(sig)}`;
}
