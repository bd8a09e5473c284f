/**
 * The shape of one app-config key and the helpers the section tables (registry/*.ts) declare
 * their keys with: `k` (defaults filled in, literal types kept), the admin page sections and the
 * validators of json keys. Imported in the browser by the admin page too: no imports here.
 */
export type ConfigType = 'string' | 'int' | 'bool' | 'groups' | 'string[]' | 'json';
export type BoolStyle = 'yesno' | '10';

export interface ConfigKey {
  key: string;
  type: ConfigType;
  /** Stored default ('' when the contract gives none). */
  default: string;
  /** Part of the X-Service-Hash digest. */
  hash: boolean;
  ui: boolean;
  cli: boolean;
  wip: boolean;
  /** Never returned or logged: reads show a mask. */
  secret: boolean;
  boolStyle?: BoolStyle;
  /** Allowed values for enum-like strings. */
  enum?: readonly string[];
  min?: number;
  max?: number;
  maxLength?: number;
  /** For json keys: checks the decoded value, returns an error message or null. */
  validateJson?: (value: unknown) => string | null;
  /** Other names that address the same key (Nextcloud's real key names, docs/reference/capabilities-and-config.md#app-config-keys). */
  aliases?: readonly string[];
  /** A prefix key (`signaling_token_privkey_*`): any key starting with `key` matches. */
  prefix?: boolean;
  description: string;
  /** Section of the admin page (one of CONFIG_SECTIONS). */
  section: string;
  /** Labels for the allowed values of an int or enum key (admin page select). */
  choices?: Record<string, string>;
  /** How the admin page edits a json key: a list of host:port, TURN entries, or servers + shared secret. */
  editor?: 'host-list' | 'turn-list' | 'server-list';
}

type KeyInput = Partial<ConfigKey> & Pick<ConfigKey, 'key' | 'type' | 'description' | 'section'>;

/** One key; `const` keeps its name, type and enum as literal types (see AppConfigKey below). */
export function k<const I extends KeyInput>(input: I): ConfigKey & I {
  return {
    default: '',
    hash: false,
    ui: false,
    cli: false,
    wip: false,
    secret: false,
    ...input,
  };
}

export const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A recording server list: http(s) URLs. */
export const validateServerList = (v: unknown) => validateServers(v, /^https?:\/\/\S+$/, 'http(s)');
/** A signaling server list: http(s) or ws(s) URLs (Talk's own `talk:signaling:add` example is wss://). */
export const validateSignalingServers = (v: unknown) => validateServers(v, /^(https?|wss?):\/\/\S+$/i, 'http(s) or ws(s)');

function validateServers(v: unknown, url: RegExp, schemes: string): string | null {
  // Nextcloud stores {"servers":[{"server":url,"verify":bool}],"secret":str}; an empty list is [] or {}.
  if (Array.isArray(v) && v.length === 0) return null;
  if (!isPlainObject(v)) return 'must be an object {"servers":[{"server":"https://…","verify":true}],"secret":"…"}';
  const servers = v.servers ?? [];
  if (!Array.isArray(servers)) return '"servers" must be a list';
  for (const s of servers) {
    if (!isPlainObject(s) || typeof s.server !== 'string' || !url.test(s.server)) {
      return `each server needs a "server" ${schemes} URL`;
    }
    if (s.verify !== undefined && typeof s.verify !== 'boolean') return '"verify" must be true or false';
  }
  if (v.secret !== undefined && typeof v.secret !== 'string') return '"secret" must be a string';
  return null;
}

export function validateTurnServers(v: unknown): string | null {
  if (!Array.isArray(v)) return 'must be a list of {"schemes","server","secret","protocols"}';
  for (const s of v) {
    if (!isPlainObject(s)) return 'each TURN server must be an object';
    if (typeof s.server !== 'string' || !/^[^\s/]+(:\d+)?$/.test(s.server)) return 'each TURN server needs "server" as host:port';
    if (s.schemes !== undefined && !['turn', 'turns', 'turn,turns'].includes(String(s.schemes))) {
      return '"schemes" must be turn, turns or turn,turns';
    }
    if (s.protocols !== undefined && !['udp', 'tcp', 'udp,tcp'].includes(String(s.protocols))) {
      return '"protocols" must be udp, tcp or udp,tcp';
    }
    if (s.secret !== undefined && typeof s.secret !== 'string') return '"secret" must be a string';
  }
  return null;
}

export function validateStunServers(v: unknown): string | null {
  if (!Array.isArray(v)) return 'must be a list of host:port strings';
  for (const s of v) {
    if (typeof s !== 'string' || !/^[^\s/:]+:\d{1,5}$/.test(s)) return 'each STUN server must be host:port';
  }
  return null;
}

export const validateObject = (v: unknown): string | null => (isPlainObject(v) || (Array.isArray(v) && v.length === 0) ? null : 'must be a JSON object');

/** The admin page sections (CONFIG_SECTIONS orders them). */
export const SECTION = {
  general: 'General settings',
  access: 'Allowed groups',
  signaling: 'Signaling servers',
  stun: 'STUN servers',
  turn: 'TURN servers',
  recording: 'Recording servers',
  sip: 'SIP bridge',
  bridge: 'Chat bridge',
  federation: 'Federation',
  backgrounds: 'Virtual backgrounds',
  retention: 'Retention and clean-up',
  internal: 'Internal',
};
