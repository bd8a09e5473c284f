/**
 * App config: typed reads through a snapshot that is reloaded whenever any process
 * changes a value (the cache generation row), and validated writes through the registry.
 */
import {
  CONFIG_KEYS,
  ConfigValueError,
  findConfigKey,
  maskConfigValue,
  normalizeConfigValue,
  restoreMaskedSecrets,
  SENSITIVE_MASK,
  storedKeyName,
  type ConfigKey,
} from '../../app-config/registry.js';
import { AppConfigSnapshot } from '../../app-config/snapshot.js';
import type { AppConfigRepository } from '../../db/repositories/app-config.js';
import type { GroupsRepository } from '../../db/repositories/groups.js';
import { badRequest, forbidden, notFound } from '../../domain/errors.js';

/**
 * App ids whose configuration Parley holds. Nextcloud's provisioning API answers 403 for an app
 * id it will not touch; Parley only has Talk's (`spreed`).
 */
export const APP_IDS: readonly string[] = ['spreed'];

export interface ConfigEntry {
  key: string;
  value: string;
  isDefault: boolean;
  def: ConfigKey;
}

export class AppConfigService {
  private cached: AppConfigSnapshot | undefined;

  constructor(
    private readonly repo: AppConfigRepository,
    private readonly groups: GroupsRepository,
  ) {}

  /**
   * The snapshot this process read last, without asking whether it is still current: for work
   * inside a transaction that must not wait for another connection (SQLite has one). The
   * request doing that work read the config when it began, so this is the config as of its start.
   */
  lastSnapshot(): AppConfigSnapshot | undefined {
    return this.cached;
  }

  /**
   * The current snapshot. Costs one small query (the generation) when a snapshot is cached,
   * so a change made by any process is seen by the next request everywhere.
   */
  async snapshot(): Promise<AppConfigSnapshot> {
    const generation = await this.repo.generation();
    if (this.cached && this.cached.generation === generation) return this.cached;
    const values = await this.repo.all();
    this.cached = new AppConfigSnapshot(values, generation);
    return this.cached;
  }

  /** App ids with configuration (the provisioning API's app list). */
  apps(): string[] {
    return [...APP_IDS];
  }

  /** Throws 403 `{error:"app"}` unless `app` is an app id Parley holds config for. */
  requireApp(app: string): void {
    if (!APP_IDS.includes(app)) throw forbidden('app', 'Invalid app id given');
  }

  /** Resolves a key name or throws 400 `{error:"key"}`. */
  definition(name: string): ConfigKey {
    const def = findConfigKey(name);
    if (!def) throw badRequest('key', `Unknown app config key "${name}"`);
    return def;
  }

  /** Validates and stores a value; returns the stored form. */
  async set(name: string, raw: unknown): Promise<string> {
    const def = this.definition(name);
    let value: string;
    try {
      value = normalizeConfigValue(def, raw);
      // A masked secret sent back (read, edited, saved) keeps the stored secret.
      if (def.secret && value.includes(SENSITIVE_MASK)) {
        value = restoreMaskedSecrets(def, value, (await this.snapshot()).values.get(storedKeyName(name, def)));
      }
    } catch (e) {
      if (e instanceof ConfigValueError) throw badRequest('value', `${def.key} ${e.message}`);
      throw e;
    }
    if (def.type === 'groups') {
      // Unknown group ids are refused so that a typo cannot lock everybody out.
      const wanted = JSON.parse(value) as string[];
      const found = new Set((await this.groups.existing(wanted)).map((g) => g.id));
      const missing = wanted.filter((g) => !found.has(g));
      if (missing.length) throw badRequest('value', `${def.key}: unknown group ${missing.map((m) => `"${m}"`).join(', ')}`);
    }
    await this.repo.write([{ key: storedKeyName(name, def), value }]);
    this.cached = undefined;
    return value;
  }

  /** Stores several already-normalised values at once (one generation bump). */
  async setMany(changes: Array<{ key: string; value: string | undefined }>): Promise<void> {
    await this.repo.write(changes);
    this.cached = undefined;
  }

  /** Stores generated values only where nothing is stored yet (first start of several processes). */
  async setIfAbsent(values: Array<{ key: string; value: string }>): Promise<void> {
    await this.repo.insertMissing(values);
    this.cached = undefined;
  }

  /** Removes a stored value (the registry default applies again); returns whether one was stored. */
  async delete(name: string): Promise<boolean> {
    const def = this.definition(name);
    const key = storedKeyName(name, def);
    const existed = (await this.snapshot()).values.has(key);
    await this.repo.write([{ key, value: undefined }]);
    this.cached = undefined;
    return existed;
  }

  /** The names of the stored keys, sorted (Nextcloud's `getKeys`: stored keys only). */
  async storedKeys(): Promise<string[]> {
    // A row no registry key claims (left by an older version) cannot be addressed, so it is not listed.
    return [...(await this.snapshot()).values.keys()].filter((k) => findConfigKey(k) !== undefined).sort();
  }

  /** Stored entries only (what `occ config:list` shows), secrets masked, sorted by key. */
  async listStored(): Promise<ConfigEntry[]> {
    const snap = await this.snapshot();
    const out: ConfigEntry[] = [];
    for (const key of await this.storedKeys()) {
      const def = findConfigKey(key)!;
      out.push({ key, value: maskConfigValue(def, snap.values.get(key)!), isDefault: false, def });
    }
    return out;
  }

  /** A value for display: secrets masked. Unknown key 400; `onlyStored` makes unset keys 404. */
  async read(name: string, onlyStored = false): Promise<ConfigEntry> {
    const def = this.definition(name);
    const snap = await this.snapshot();
    const key = storedKeyName(name, def);
    const stored = snap.values.get(key);
    if (stored === undefined && onlyStored) throw notFound('key', `${key} is not set`);
    return { key, value: maskConfigValue(def, stored ?? def.default), isDefault: stored === undefined, def };
  }

  /** Every registry key (and stored prefixed keys) with its display value. */
  async list(): Promise<ConfigEntry[]> {
    const snap = await this.snapshot();
    const out: ConfigEntry[] = [];
    for (const def of CONFIG_KEYS) {
      if (def.prefix) {
        for (const [key, value] of snap.values) {
          if (key.startsWith(def.key)) out.push({ key, value: maskConfigValue(def, value), isDefault: false, def });
        }
        continue;
      }
      const stored = snap.values.get(def.key);
      out.push({ key: def.key, value: maskConfigValue(def, stored ?? def.default), isDefault: stored === undefined, def });
    }
    return out;
  }
}
