/**
 * THE registry of app-config keys (spec "Server-wide app configuration", docs/reference/capabilities-and-config.md#app-config-keys).
 * Validation, storage form, the X-Service-Hash digest, capabilities, the admin page and the CLI
 * all read this table; no key is spelled anywhere else as a literal default.
 *
 * Storage rule (contract): every value is a string. Arrays/objects are JSON, ints are decimal
 * strings, booleans are `yes`/`no` or `1`/`0` depending on the key (docs/reference/capabilities-and-config.md#app-config-keys).
 *
 * The table is split by admin-page section into registry/*.ts (the key shape and `k` in
 * registry/define.ts) and joined here; importers use this module only.
 *
 * The admin page (src/web/admin) imports this module in the browser to validate exactly as the
 * server does: it imports only its own registry/*.ts files, which import nothing (no Node APIs).
 */
import { SECTION as S, isPlainObject, type ConfigKey, type ConfigType } from './registry/define.js';
import { GENERAL_KEYS } from './registry/general.js';
import { SERVER_KEYS } from './registry/servers.js';
import { ACCESS_KEYS } from './registry/access.js';
import { RETENTION_KEYS } from './registry/retention.js';
import { INTERNAL_KEYS } from './registry/internal.js';

export type { BoolStyle, ConfigKey, ConfigType } from './registry/define.js';

export const SENSITIVE_MASK = '***REMOVED SENSITIVE VALUE***';

/** Admin page sections in the order a Talk admin knows them; Internal keys are not shown there. */
export const CONFIG_SECTIONS: readonly string[] = [
  S.signaling,
  S.general,
  S.access,
  S.federation,
  S.stun,
  S.turn,
  S.recording,
  S.sip,
  S.bridge,
  S.backgrounds,
  S.retention,
  S.internal,
];
export const INTERNAL_SECTION = S.internal;

/**
 * Every key, once: the section tables joined (in the admin page's section order). The table is
 * `as const`, so AppConfigKey below is the exact union of the key names.
 */
export const CONFIG_KEYS = [...SERVER_KEYS, ...GENERAL_KEYS, ...ACCESS_KEYS, ...RETENTION_KEYS, ...INTERNAL_KEYS] as const satisfies readonly ConfigKey[];

type KeyDef = (typeof CONFIG_KEYS)[number];
type PlainKeyDef = Exclude<KeyDef, { prefix: true }>;

/** Every registry key name (not aliases, not prefixed keys): app-config reads take only these. */
export type AppConfigKey = PlainKeyDef['key'];
/** A stored name of a prefixed key (`signaling_token_privkey_ES256`). */
export type PrefixedConfigKey = `${Extract<KeyDef, { prefix: true }>['key']}${string}`;
/** The keys of one registry type (`int`, `bool`, ...). */
export type ConfigKeyOfType<T extends ConfigType> = Extract<PlainKeyDef, { type: T }>['key'];
/** The string a key reads as: its allowed values for enum keys, else any string. */
export type ConfigStringValue<K extends AppConfigKey> = Extract<PlainKeyDef, { key: K }> extends { enum: readonly (infer E)[] } ? E : string;

const byName = new Map<string, ConfigKey>();
for (const def of CONFIG_KEYS) {
  if (!def.prefix) byName.set(def.key, def);
  for (const a of def.aliases ?? []) byName.set(a, def);
}
const prefixKeys = CONFIG_KEYS.filter((d) => d.prefix);

/** Finds the definition for a key name (canonical, alias or prefixed); undefined when unknown. */
export function findConfigKey(name: string): ConfigKey | undefined {
  const direct = byName.get(name);
  if (direct) return direct;
  return prefixKeys.find((d) => name.startsWith(d.key) && /^[a-z0-9]{1,16}$/i.test(name.slice(d.key.length)));
}

/** The stored key name for a requested name: aliases map to the canonical key, prefixed keys keep their suffix. */
export function storedKeyName(name: string, def: ConfigKey): string {
  return def.prefix ? name : def.key;
}

export class ConfigValueError extends Error {}

/** Bounds of structured (JSON) values: server lists nest 3 deep and are a few KB at most. */
export const MAX_JSON_CONFIG_LENGTH = 65_536;
export const MAX_JSON_CONFIG_DEPTH = 16;

/**
 * Parses a structured config value within the bounds, so that no later recursive walk (secret
 * masking, validation) can overflow the stack on a hostile 10,000-level value: too long or too
 * deep is a ConfigValueError (400), checked without recursion.
 */
export function parseBoundedJson(value: string): unknown {
  if (value.length > MAX_JSON_CONFIG_LENGTH) throw new ConfigValueError(`is too long (at most ${MAX_JSON_CONFIG_LENGTH} characters)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConfigValueError('must be valid JSON');
  }
  const stack: Array<[unknown, number]> = [[parsed, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_JSON_CONFIG_DEPTH) throw new ConfigValueError(`nests too deeply (at most ${MAX_JSON_CONFIG_DEPTH} levels)`);
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return parsed;
}

const BOOL_TRUE = ['yes', '1', 'true', 'on'];

/** How a stored boolean reads as true (any case, surrounding spaces ignored). */
export function isTrueValue(stored: string): boolean {
  return BOOL_TRUE.includes(stored.trim().toLowerCase());
}
const BOOL_FALSE = ['no', '0', 'false', 'off', ''];

/**
 * Validates a raw input value for a key and returns the stored string form.
 * Throws ConfigValueError with a readable reason.
 */
export function normalizeConfigValue(def: ConfigKey, raw: unknown): string {
  if (raw === null || raw === undefined) throw new ConfigValueError('a value is required');
  if (typeof raw === 'object') {
    if (def.type === 'json' || def.type === 'groups' || def.type === 'string[]') raw = JSON.stringify(raw);
    else throw new ConfigValueError(`must be a ${def.type === 'int' ? 'whole number' : def.type}`);
  }
  const value = String(raw);
  switch (def.type) {
    case 'int': {
      const t = value.trim();
      if (!/^-?\d{1,10}$/.test(t)) throw new ConfigValueError('must be a whole number');
      const n = Number(t);
      if (def.min !== undefined && n < def.min) throw new ConfigValueError(`must be at least ${def.min}`);
      if (def.max !== undefined && n > def.max) throw new ConfigValueError(`must be at most ${def.max}`);
      return String(n);
    }
    case 'bool': {
      const t = value.trim().toLowerCase();
      const style = def.boolStyle ?? 'yesno';
      if (BOOL_TRUE.includes(t)) return style === 'yesno' ? 'yes' : '1';
      if (BOOL_FALSE.includes(t)) return style === 'yesno' ? 'no' : '0';
      throw new ConfigValueError(style === 'yesno' ? 'must be yes or no' : 'must be 1 or 0');
    }
    case 'string': {
      if (def.enum && !def.enum.includes(value)) throw new ConfigValueError(`must be one of: ${def.enum.join(', ')}`);
      const max = def.maxLength ?? 4096;
      if (value.length > max) throw new ConfigValueError(`must be at most ${max} characters`);
      return value;
    }
    case 'groups':
    case 'string[]': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        throw new ConfigValueError('must be a JSON list of strings, e.g. ["admin"]');
      }
      if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string' && x.length > 0 && x.length <= 255)) {
        throw new ConfigValueError('must be a JSON list of strings, e.g. ["admin"]');
      }
      return JSON.stringify([...new Set(parsed as string[])]);
    }
    case 'json': {
      const parsed = parseBoundedJson(value);
      const problem = def.validateJson?.(parsed);
      if (problem) throw new ConfigValueError(problem);
      return JSON.stringify(parsed);
    }
  }
}

/** Hides secrets inside a stored value for display (whole value, or the secrets inside server lists). */
export function maskConfigValue(def: ConfigKey, stored: string): string {
  if (!def.secret || stored === '') return stored;
  if (def.type !== 'json') return SENSITIVE_MASK;
  try {
    const parsed = JSON.parse(stored);
    const scrub = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(scrub);
      if (isPlainObject(v)) {
        const out: Record<string, unknown> = {};
        for (const [kk, vv] of Object.entries(v)) out[kk] = /secret|password|token|nonce/i.test(kk) && vv !== '' ? SENSITIVE_MASK : scrub(vv);
        return out;
      }
      return v;
    };
    return JSON.stringify(scrub(parsed));
  } catch {
    return SENSITIVE_MASK;
  }
}

/**
 * A client that read a masked value (maskConfigValue) and sends it back keeps the stored
 * secrets: every SENSITIVE_MASK in `incoming` is replaced by the secret stored at the same place
 * (TURN entries are matched by server, schemes and protocols, so removing a row does not move
 * secrets between servers). A mask with nothing stored behind it is refused, so the mask text is
 * never stored as a secret. Returns the stored form.
 */
export function restoreMaskedSecrets(def: ConfigKey, incoming: string, stored: string | undefined): string {
  if (!def.secret || !incoming.includes(SENSITIVE_MASK)) return incoming;
  const missing = () => new ConfigValueError('contains a hidden secret that is not stored; send the secret itself');
  if (def.type !== 'json') {
    if (incoming !== SENSITIVE_MASK) return incoming;
    if (stored === undefined || stored === '') throw missing();
    return stored;
  }
  let previous: unknown;
  try {
    previous = stored === undefined ? undefined : JSON.parse(stored);
  } catch {
    previous = undefined;
  }
  const same = (a: Record<string, unknown>, b: unknown) => isPlainObject(b) && b.server === a.server && b.schemes === a.schemes && b.protocols === a.protocols;
  const walk = (v: unknown, old: unknown): unknown => {
    if (v === SENSITIVE_MASK) {
      if (typeof old !== 'string' || old === '') throw missing();
      return old;
    }
    if (Array.isArray(v)) {
      const olds = Array.isArray(old) ? old : [];
      return v.map((item, i) => {
        const match =
          isPlainObject(item) && 'server' in item
            ? (olds.find((o) => same(item, o)) ?? olds.find((o) => isPlainObject(o) && o.server === item.server))
            : olds[i];
        return walk(item, match);
      });
    }
    if (isPlainObject(v)) {
      const out: Record<string, unknown> = {};
      for (const [kk, vv] of Object.entries(v)) out[kk] = walk(vv, isPlainObject(old) ? old[kk] : undefined);
      return out;
    }
    return v;
  };
  return JSON.stringify(walk(JSON.parse(incoming), previous));
}
