/**
 * THE registry of app-config keys (spec "Server-wide app configuration", docs/reference/capabilities-and-config.md#app-config-keys).
 * Validation, storage form, the X-Service-Hash digest, capabilities, the admin page and the CLI
 * all read this table; no key is spelled anywhere else as a literal default.
 *
 * Storage rule (contract): every value is a string. Arrays/objects are JSON, ints are decimal
 * strings, booleans are `yes`/`no` or `1`/`0` depending on the key (docs/reference/capabilities-and-config.md#app-config-keys).
 *
 * The admin page (src/web/admin) imports this module in the browser to validate exactly as the
 * server does: keep it free of imports (no Node APIs).
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

export const SENSITIVE_MASK = '***REMOVED SENSITIVE VALUE***';

type KeyInput = Partial<ConfigKey> & Pick<ConfigKey, 'key' | 'type' | 'description' | 'section'>;

/** One key; `const` keeps its name, type and enum as literal types (see AppConfigKey below). */
function k<const I extends KeyInput>(input: I): ConfigKey & I {
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

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A recording server list: http(s) URLs. */
const validateServerList = (v: unknown) => validateServers(v, /^https?:\/\/\S+$/, 'http(s)');
/** A signaling server list: http(s) or ws(s) URLs (Talk's own `talk:signaling:add` example is wss://). */
const validateSignalingServers = (v: unknown) => validateServers(v, /^(https?|wss?):\/\/\S+$/i, 'http(s) or ws(s)');

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

function validateTurnServers(v: unknown): string | null {
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

function validateStunServers(v: unknown): string | null {
  if (!Array.isArray(v)) return 'must be a list of host:port strings';
  for (const s of v) {
    if (typeof s !== 'string' || !/^[^\s/:]+:\d{1,5}$/.test(s)) return 'each STUN server must be host:port';
  }
  return null;
}

const validateObject = (v: unknown): string | null => (isPlainObject(v) || (Array.isArray(v) && v.length === 0) ? null : 'must be a JSON object');

const S = {
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

export const CONFIG_KEYS = [
  k({
    key: 'allowed_groups',
    type: 'groups',
    default: '[]',
    hash: true,
    ui: true,
    section: S.access,
    description: 'group ids allowed to use the service (everyone when empty)',
  }),
  k({
    key: 'sip_bridge_groups',
    type: 'groups',
    default: '[]',
    hash: true,
    ui: true,
    section: S.sip,
    description: 'group ids allowed to enable SIP dial-in in a conversation',
  }),
  k({
    key: 'start_conversations',
    type: 'groups',
    default: '[]',
    hash: true,
    ui: true,
    section: S.access,
    description: 'group ids allowed to create conversations (everyone when empty)',
  }),
  k({
    key: 'start_calls_groups',
    type: 'groups',
    default: '[]',
    hash: true,
    ui: true,
    section: S.access,
    description: 'group ids allowed to start calls (everyone when empty)',
  }),
  k({
    key: 'federation_allowed_groups',
    type: 'groups',
    default: '[]',
    hash: true,
    ui: true,
    wip: true,
    section: S.federation,
    description: 'group ids allowed to use federated features (everyone when empty)',
  }),
  k({
    key: 'hosted-signaling-server-account',
    type: 'json',
    default: '{}',
    ui: true,
    secret: true,
    validateJson: validateObject,
    section: S.signaling,
    description: 'account information of the hosted signaling server',
  }),
  k({
    key: 'stun_servers',
    type: 'json',
    default: '[]',
    hash: true,
    ui: true,
    cli: true,
    editor: 'host-list',
    validateJson: validateStunServers,
    section: S.stun,
    description: 'list of STUN servers (host:port)',
  }),
  k({
    key: 'turn_servers',
    type: 'json',
    default: '[]',
    hash: true,
    ui: true,
    cli: true,
    secret: true,
    editor: 'turn-list',
    validateJson: validateTurnServers,
    section: S.turn,
    description: 'list of TURN servers',
  }),
  k({
    key: 'recording_servers',
    type: 'json',
    default: '[]',
    hash: true,
    ui: true,
    secret: true,
    editor: 'server-list',
    validateJson: validateServerList,
    section: S.recording,
    description: 'list of recording servers and their shared secret',
  }),
  k({
    key: 'signaling_servers',
    type: 'json',
    default: '[]',
    hash: true,
    ui: true,
    cli: true,
    secret: true,
    editor: 'server-list',
    validateJson: validateSignalingServers,
    section: S.signaling,
    description: 'list of signaling servers and their shared secret',
  }),
  k({
    key: 'signaling_mode',
    type: 'string',
    default: 'internal',
    hash: true,
    enum: ['internal', 'external', 'conversation_cluster'],
    section: S.signaling,
    description: 'signaling mode',
  }),
  k({
    key: 'sip_bridge_dialin_info',
    type: 'string',
    hash: true,
    ui: true,
    maxLength: 4000,
    section: S.sip,
    description: 'additional information in the SIP dial-in invitation mail and in the sidebar',
  }),
  k({
    key: 'sip_bridge_dialout_anonymous',
    type: 'bool',
    default: 'no',
    boolStyle: 'yesno',
    section: S.sip,
    description: 'when true all outgoing SIP calls are anonymous',
  }),
  k({
    key: 'sip_bridge_dialout_number',
    type: 'string',
    maxLength: 32,
    section: S.sip,
    description: 'fallback caller phone number for outgoing calls (E.164)',
  }),
  k({
    key: 'sip_bridge_dialout_prefix',
    type: 'string',
    default: '+',
    maxLength: 16,
    section: S.sip,
    description: 'prefix put before a user phone number to make it E.164',
  }),
  k({
    key: 'sip_bridge_shared_secret',
    type: 'string',
    hash: true,
    ui: true,
    secret: true,
    maxLength: 1024,
    section: S.sip,
    description: 'shared secret with which the SIP bridge authenticates',
  }),
  k({
    key: 'signaling_ticket_secret',
    type: 'string',
    hash: true,
    secret: true,
    maxLength: 1024,
    section: S.internal,
    description: 'secret securing signaling tickets of guests',
  }),
  k({
    key: 'signaling_token_alg',
    type: 'string',
    default: 'ES256',
    hash: true,
    enum: ['ES256', 'ES384', 'RS256', 'RS384', 'RS512', 'EdDSA'],
    section: S.internal,
    description: 'algorithm of signaling tickets',
  }),
  k({
    key: 'signaling_token_privkey_',
    prefix: true,
    type: 'string',
    hash: true,
    secret: true,
    maxLength: 16384,
    section: S.internal,
    description: 'private key for signaling ticket creation (suffix = algorithm)',
  }),
  k({
    key: 'signaling_token_pubkey_',
    prefix: true,
    type: 'string',
    hash: true,
    maxLength: 16384,
    section: S.internal,
    description: 'public key for signaling ticket creation (suffix = algorithm)',
  }),
  k({
    key: 'hosted-signaling-server-nonce',
    type: 'string',
    secret: true,
    maxLength: 1024,
    section: S.internal,
    description: 'temporary nonce while configuring the hosted signaling server',
  }),
  k({
    key: 'hosted-signaling-server-account-id',
    type: 'string',
    maxLength: 255,
    section: S.internal,
    description: 'account identifier of the hosted signaling server',
  }),
  k({
    key: 'bridge_binary',
    aliases: ['matterbridge_binary'],
    type: 'string',
    maxLength: 4096,
    section: S.bridge,
    description: 'path to the chat-bridge binary',
  }),
  k({ key: 'bridge_bot_password', type: 'string', secret: true, maxLength: 1024, section: S.bridge, description: 'generated password of the bridge bot user' }),
  k({
    key: 'default_attachment_folder',
    type: 'string',
    default: '/Talk',
    maxLength: 4096,
    section: S.general,
    description: 'default attachment folder location',
  }),
  k({
    key: 'files_max_file_size',
    type: 'int',
    default: '1073741824',
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    ui: true,
    section: S.general,
    description: 'largest file a user may upload through WebDAV, in bytes (413 above it)',
  }),
  k({
    key: 'files_quota',
    type: 'int',
    default: '-1',
    min: -1,
    max: Number.MAX_SAFE_INTEGER,
    ui: true,
    section: S.general,
    description: 'bytes of files each user may store, -1 = unlimited (507 when an upload would exceed it)',
  }),
  k({ key: 'samples_directory', type: 'string', maxLength: 4096, section: S.internal, description: 'readable directory with sample conversation data' }),
  k({
    key: 'start_calls',
    type: 'int',
    default: '0',
    hash: true,
    ui: true,
    min: 0,
    max: 3,
    choices: { 0: 'Everyone', 1: 'Users and moderators', 2: 'Moderators only', 3: 'Disable calls' },
    section: S.access,
    description: 'who can start a call: 0 everyone, 1 users, 2 moderators, 3 nobody',
  }),
  k({
    key: 'max_call_duration',
    type: 'int',
    default: '0',
    min: 0,
    max: 2_147_483_647,
    section: S.general,
    description: 'maximum call duration in seconds, 0 = unlimited',
  }),
  k({
    key: 'max_gif_size',
    aliases: ['max-gif-size'],
    type: 'int',
    default: '3145728',
    min: 0,
    max: 2_147_483_647,
    section: S.general,
    description: 'maximum file size for animated gif previews',
  }),
  k({
    key: 'session-ping-limit',
    type: 'int',
    default: '200',
    min: 1,
    max: 100_000,
    section: S.signaling,
    description: 'number of sessions the HPB can ping in one request',
  }),
  k({ key: 'token_entropy', type: 'int', default: '8', min: 8, max: 30, section: S.general, description: 'length of conversation tokens' }),
  k({
    key: 'default_group_notification',
    type: 'int',
    default: '1',
    ui: true,
    min: 1,
    max: 3,
    choices: { 1: 'All messages', 2: '@-mentions only', 3: 'Off' },
    section: S.general,
    description: 'default notification level for group conversations: 1 always, 2 mentions, 3 never',
  }),
  k({
    key: 'default_permissions',
    type: 'int',
    default: '246',
    hash: true,
    min: 0,
    max: 511,
    section: S.general,
    description: 'default permissions for non-moderators (bit flags)',
  }),
  k({
    key: 'recording_consent',
    type: 'int',
    default: '0',
    hash: true,
    ui: true,
    min: 0,
    max: 2,
    choices: { 0: 'Not required', 1: 'Required', 2: 'Moderators decide per conversation' },
    section: S.recording,
    description: 'recording consent: 0 not needed, 1 required, 2 per conversation',
  }),
  k({
    key: 'grid_videos_limit',
    type: 'int',
    default: '19',
    min: 1,
    max: 1000,
    section: S.general,
    description: 'maximum number of videos shown besides the own video',
  }),
  k({ key: 'sip_dialin_default', type: 'int', default: '0', min: 0, max: 2, section: S.sip, description: 'default SIP dial-in value for new conversations' }),
  k({
    key: 'retention_event_rooms',
    type: 'int',
    default: '28',
    min: 0,
    max: 36500,
    section: S.retention,
    description: 'retention of event conversations in days, 0 = none',
  }),
  k({
    key: 'retention_phone_rooms',
    type: 'int',
    default: '7',
    min: 0,
    max: 36500,
    section: S.retention,
    description: 'retention of phone conversations in days, 0 = none',
  }),
  k({
    key: 'retention_instant_meetings',
    type: 'int',
    default: '1',
    min: 0,
    max: 36500,
    section: S.retention,
    description: 'retention of instant meetings in days, 0 = none',
  }),
  k({
    key: 'retention_classified_rooms',
    type: 'int',
    default: '3600',
    min: 0,
    max: 2_147_483_647,
    section: S.retention,
    description: 'retention of classified conversations in seconds after a call, 0 = none',
  }),
  k({
    key: 'experiments_users',
    type: 'int',
    default: '0',
    hash: true,
    min: 0,
    max: 2_147_483_647,
    section: S.general,
    description: 'bit flags of experiments for logged-in users',
  }),
  k({
    key: 'experiments_guests',
    type: 'int',
    default: '0',
    hash: true,
    min: 0,
    max: 2_147_483_647,
    section: S.general,
    description: 'bit flags of experiments for guests',
  }),
  k({
    key: 'summary_threshold',
    type: 'int',
    default: '100',
    min: 1,
    max: 2_147_483_647,
    section: S.general,
    description: 'unread messages after which an AI summary is offered',
  }),
  k({
    key: 'feature_hints_hidden',
    type: 'int',
    default: '0',
    hash: true,
    ui: true,
    min: 0,
    max: 999999,
    section: S.general,
    description: 'feature hints to hide; 999999 hides all',
  }),
  k({
    key: 'certificate_expiration_days',
    type: 'int',
    default: '10',
    min: 0,
    max: 365,
    section: S.general,
    description: 'days of remaining certificate validity before a notification',
  }),
  k({
    key: 'grid_videos_limit_enforced',
    type: 'bool',
    default: 'no',
    boolStyle: 'yesno',
    section: S.general,
    description: 'whether the grid video limit is enforced',
  }),
  k({
    key: 'changelog',
    type: 'bool',
    default: 'yes',
    boolStyle: 'yesno',
    section: S.general,
    description: 'update the changelog conversation on major releases',
  }),
  k({
    key: 'hide_signaling_warning',
    type: 'bool',
    default: 'no',
    boolStyle: 'yesno',
    ui: true,
    section: S.signaling,
    description: 'suppress the warning that a high-performance backend should be configured',
  }),
  k({
    key: 'conversations_list_style',
    type: 'string',
    default: 'two-lines',
    enum: ['two-lines', 'compact'],
    section: S.general,
    description: 'default conversation list style',
  }),
  k({ key: 'chat_style', type: 'string', default: 'split', enum: ['split', 'unified'], section: S.general, description: 'default chat style' }),
  k({
    key: 'calls_start_without_media',
    type: 'bool',
    default: 'no',
    boolStyle: 'yesno',
    section: S.general,
    description: 'participants start calls with audio and video off',
  }),
  k({
    key: 'breakout_rooms',
    type: 'bool',
    default: 'yes',
    boolStyle: 'yesno',
    hash: true,
    section: S.general,
    description: 'whether new breakout rooms may be created',
  }),
  k({ key: 'call_recording', type: 'string', default: 'yes', hash: true, enum: ['yes', 'no'], section: S.recording, description: 'enables call recording' }),
  k({
    key: 'call_recording_summary',
    type: 'string',
    default: 'yes',
    ui: true,
    enum: ['yes', 'no'],
    section: S.recording,
    description: 'automatic summary of recordings',
  }),
  k({
    key: 'call_recording_transcription',
    type: 'bool',
    default: 'no',
    boolStyle: 'yesno',
    hash: true,
    section: S.recording,
    description: 'automatic transcription of recordings',
  }),
  k({
    key: 'sip_dialout',
    type: 'string',
    default: 'no',
    hash: true,
    enum: ['yes', 'no'],
    section: S.sip,
    description: 'SIP dial-out allowed when a SIP bridge is configured',
  }),
  k({
    key: 'federation_enabled',
    type: 'bool',
    default: 'no',
    boolStyle: 'yesno',
    hash: true,
    wip: true,
    section: S.federation,
    description: 'whether federation with this instance is allowed',
  }),
  k({
    key: 'federation_incoming_enabled',
    type: 'string',
    default: '1',
    hash: true,
    wip: true,
    enum: ['1', '0'],
    section: S.federation,
    description: 'users of this instance can be invited to federated conversations',
  }),
  k({
    key: 'federation_outgoing_enabled',
    type: 'string',
    default: '1',
    hash: true,
    wip: true,
    enum: ['1', '0'],
    section: S.federation,
    description: 'users of this instance can invite federated users',
  }),
  k({
    key: 'federation_only_trusted_servers',
    type: 'string',
    default: '0',
    hash: true,
    wip: true,
    enum: ['1', '0'],
    section: S.federation,
    description: 'limit federation to trusted servers',
  }),
  k({
    key: 'conversations_files',
    type: 'bool',
    default: '1',
    boolStyle: '10',
    ui: true,
    section: S.general,
    description: 'allow starting conversations in the files sidebar',
  }),
  k({
    key: 'conversations_files_public_shares',
    type: 'bool',
    default: '1',
    boolStyle: '10',
    ui: true,
    section: S.general,
    description: 'same on the public share page',
  }),
  k({
    key: 'delete_one_to_one_conversations',
    type: 'bool',
    default: '0',
    boolStyle: '10',
    section: S.general,
    description: 'delete one-to-one conversations when one participant leaves',
  }),
  k({
    key: 'enable_bridge',
    aliases: ['enable_matterbridge'],
    type: 'bool',
    default: '0',
    boolStyle: '10',
    ui: true,
    section: S.bridge,
    description: 'whether the chat-bridge integration is enabled',
  }),
  k({ key: 'force_passwords', type: 'bool', default: '0', boolStyle: '10', section: S.general, description: 'public conversations must have a password' }),
  k({ key: 'create_samples', type: 'bool', default: '1', boolStyle: '10', section: S.general, description: 'create sample conversations' }),
  k({
    key: 'call_end_to_end_encryption',
    type: 'bool',
    default: '0',
    boolStyle: '10',
    ui: true,
    section: S.signaling,
    description: 'clients end-to-end encrypt call streams (HPB only)',
  }),
  k({
    key: 'inactivity_lock_after_days',
    type: 'int',
    default: '0',
    min: 0,
    max: 36500,
    section: S.retention,
    description: 'days after which idle conversations are locked, 0 = never',
  }),
  k({
    key: 'inactivity_enable_lobby',
    type: 'bool',
    default: '0',
    boolStyle: '10',
    section: S.retention,
    description: 'also enable the lobby on inactive conversations',
  }),
  k({
    key: 'backgrounds_branded_for_guests',
    type: 'bool',
    default: '0',
    boolStyle: '10',
    section: S.backgrounds,
    description: 'guests may use branded virtual backgrounds',
  }),
  k({
    key: 'backgrounds_default_for_users',
    type: 'bool',
    default: '1',
    boolStyle: '10',
    section: S.backgrounds,
    description: 'users may use the default virtual backgrounds',
  }),
  k({
    key: 'backgrounds_upload_users',
    type: 'bool',
    default: '1',
    boolStyle: '10',
    section: S.backgrounds,
    description: 'users may upload custom virtual backgrounds',
  }),
  k({
    key: 'guests_play_sounds',
    type: 'bool',
    default: '1',
    boolStyle: '10',
    section: S.general,
    description: 'guests hear join and leave sounds by default',
  }),
  k({
    // Talk's "forced" conversation preset (lib/RoomPresets/Forced.php): set, it wins over what a
    // client asks for at creation; unset (no default) means not forced.
    key: 'force_message_expiration',
    type: 'int',
    min: 0,
    max: 2_147_483_647,
    section: S.general,
    description: 'message expiration (seconds) every new conversation gets; conversations may not turn it off or make it longer (unset = not forced)',
  }),
  k({
    key: 'password_policy_min_length',
    type: 'int',
    default: '10',
    ui: true,
    min: 0,
    max: 1024,
    section: S.general,
    description: 'minimum length of conversation passwords (Parley password policy)',
  }),
] as const satisfies readonly ConfigKey[];

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
