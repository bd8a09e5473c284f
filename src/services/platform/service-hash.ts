/**
 * X-Service-Hash (sent as X-Nextcloud-Talk-Hash too; docs/reference/capabilities-and-config.md#the-hash-header):
 * a sha1 that changes whenever a setting that shapes capabilities changes, so clients know to
 * fetch capabilities again. Clients only compare it, so the digest is driven by the registry:
 * every key marked Hash = Yes (contract table), the signing key pair of the current algorithm,
 * the server and Talk versions, and, for users, their attachment folder preference.
 * Keys marked Hash = No (e.g. `enable_bridge`, `call_recording_summary`, which Talk itself
 * includes) are left out, as the contract says.
 */
import { createHash } from 'node:crypto';
import { CONFIG_KEYS } from '../../app-config/registry.js';
import { BoundedMap } from '../../domain/bounded-map.js';
import { SERVER_VERSION_FULL, TALK_VERSION } from '../../domain/version.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import { effectivePreferences, type PreferencesService } from '../accounts/preferences.js';
import type { RequestContext } from './request-context.js';

const HASH_KEYS = CONFIG_KEYS.filter((def) => def.hash);

export interface HashSubject {
  kind: 'user' | 'guest';
  /** The user's attachment folder preference (users only). */
  attachmentFolder?: string;
}

/** The digest for one subject over one config snapshot (pure). */
export function serviceHash(cfg: AppConfigSnapshot, subject: HashSubject): string {
  const alg = (cfg.get('signaling_token_alg') || 'ES256').toLowerCase();
  const parts: string[] = [SERVER_VERSION_FULL, TALK_VERSION];
  for (const def of HASH_KEYS) {
    // Prefix keys (signaling_token_privkey_*, _pubkey_*): the pair of the algorithm in use.
    // Keys come from the registry here, so they are read by stored name (stored value or default).
    parts.push(def.prefix ? (cfg.values.get(`${def.key}${alg}`) ?? '') : (cfg.values.get(def.key) ?? def.default));
  }
  parts.push(subject.kind);
  if (subject.kind === 'user') parts.push(subject.attachmentFolder ?? '');
  return createHash('sha1').update(parts.join('#')).digest('hex');
}

/** Header names carrying the hash: the contract's and Nextcloud Talk's (docs/design.md#which-behaviour-wins). */
export const HASH_HEADERS = ['X-Service-Hash', 'X-Nextcloud-Talk-Hash'] as const;

export class ServiceHashService {
  /** Digests by (config generation, subject): computing one is cheap, but GET /room is hot. */
  private readonly memo = new BoundedMap<string, string>(1000);

  constructor(private readonly preferences: PreferencesService) {}

  /**
   * The hash for the caller of a request. Reads the config generation (through the request's
   * snapshot) and, for users, their preferences: a change made through any process shows on
   * the next request everywhere.
   */
  async forContext(ctx: RequestContext): Promise<string> {
    const cfg = await ctx.config();
    const subject: HashSubject = ctx.user
      ? { kind: 'user', attachmentFolder: effectivePreferences(await this.preferences.forUser(ctx.user.id), cfg).attachmentFolder }
      : { kind: 'guest' };
    const key = `${cfg.generation}#${subject.kind}#${subject.attachmentFolder ?? ''}`;
    let hash = this.memo.get(key);
    if (hash === undefined) {
      hash = serviceHash(cfg, subject);
      this.memo.set(key, hash);
    }
    return hash;
  }

  /** Both response headers (`X-Service-Hash`, `X-Nextcloud-Talk-Hash`) for GET /room and GET /room/{token}. */
  async headers(ctx: RequestContext): Promise<Record<string, string>> {
    const hash = await this.forContext(ctx);
    return Object.fromEntries(HASH_HEADERS.map((h) => [h, hash]));
  }
}
