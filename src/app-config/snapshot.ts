/**
 * An immutable view of all app config values at one moment (built by AppConfigService). Reads
 * are typed by the registry: the key must be a registry key, and the reader must match its type
 * (`int` for int keys, `bool` for bool keys, `list` for group/string lists, `json` for JSON), so a
 * misspelt key or a wrong reader does not compile instead of silently reading the default.
 */
import { findConfigKey, isTrueValue, type AppConfigKey, type ConfigKeyOfType, type ConfigStringValue, type PrefixedConfigKey } from './registry.js';

export class AppConfigSnapshot {
  constructor(
    /** Stored values by stored key name (dynamic reads by name, e.g. the CLI, use this). */
    readonly values: ReadonlyMap<string, string>,
    readonly generation: number,
  ) {}

  /** Stored value, or the registry default; enum keys read as their allowed values. */
  get<K extends AppConfigKey>(key: K): ConfigStringValue<K> {
    const v = this.values.get(key);
    if (v !== undefined) return v as ConfigStringValue<K>;
    const def = findConfigKey(key);
    return (def ? def.default : '') as ConfigStringValue<K>;
  }

  /** Stored string only when set (no default). */
  raw(key: AppConfigKey | PrefixedConfigKey): string | undefined {
    return this.values.get(key);
  }

  int(key: ConfigKeyOfType<'int'>): number {
    const v = this.get(key).trim();
    const n = /^-?\d+$/.test(v) ? Number(v) : NaN;
    if (Number.isNaN(n)) {
      const d = findConfigKey(key)?.default ?? '0';
      return Number(d) || 0;
    }
    return n;
  }

  bool(key: ConfigKeyOfType<'bool'>): boolean {
    return isTrueValue(this.get(key));
  }

  /** A JSON list of strings (group lists are read on every Talk request: parsed once per snapshot). */
  list(key: ConfigKeyOfType<'groups' | 'string[]' | 'json'>): string[] {
    let parsed = this.lists.get(key);
    if (parsed === undefined) {
      try {
        const value: unknown = JSON.parse(this.get(key) || '[]');
        parsed = Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
      } catch {
        parsed = [];
      }
      this.lists.set(key, parsed);
    }
    return [...parsed];
  }

  private readonly lists = new Map<string, string[]>();

  json<T = unknown>(key: ConfigKeyOfType<'json'>, fallback: T): T {
    try {
      return JSON.parse(this.get(key)) as T;
    } catch {
      return fallback;
    }
  }
}
