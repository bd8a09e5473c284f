/**
 * The capabilities document (docs/reference/capabilities-and-config.md#the-capabilities-document): Nextcloud's shape, with `spreed` fed from
 * app config and the caller's preferences. Anonymous callers get the guest view; a user outside
 * `allowed_groups` gets no `spreed` key.
 *
 * The document is a pure function of the config snapshot and a few per-caller inputs
 * (`SpreedInputs`), which is what lets it be cached by a key naming exactly those inputs.
 * Anything added to the document must come from `cfg` or from the inputs.
 */
import { CHAT_MAX_LENGTH } from '../../domain/chat.js';
import { createHash } from 'node:crypto';
import { BoundedMap } from '../../domain/bounded-map.js';
import { activeFeatures, recordingAvailable } from '../../domain/features.js';
import { sipConfigured } from '../../domain/sip.js';
import { signalingMode as signalingModeOf, tokenAlgOf, tokenKeyNames } from '../../domain/signaling.js';
import { SERVER_VERSION, TALK_VERSION } from '../../domain/version.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import { effectivePreferences, type PreferencesService } from '../accounts/preferences.js';
import type { RequestContext } from './request-context.js';

const SUPPORTED_REACTIONS = ['❤️', '🎉', '👏', '👋', '👍', '👎', '🔥', '😂', '🤩', '🤔', '😲', '😥'];

const CONFIG_LOCAL = {
  attachments: ['allowed', 'folder'],
  call: [
    'predefined-backgrounds',
    'predefined-backgrounds-v2',
    'can-upload-background',
    'start-without-media',
    'blur-virtual-background',
    'play-sounds',
    'grid-limit',
    'grid-limit-enforced',
  ],
  chat: ['read-privacy', 'has-translation-providers', 'has-translation-task-providers', 'typing-privacy', 'summary-threshold', 'style'],
  conversations: ['can-create', 'list-style', 'description-length'],
  federation: ['enabled', 'incoming-enabled', 'outgoing-enabled', 'only-trusted-servers'],
  previews: ['max-gif-size'],
  signaling: ['session-ping-limit', 'hello-v2-token-key', 'mode'],
  experiments: ['enabled'],
};

type EffectivePreferences = ReturnType<typeof effectivePreferences>;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Everything besides the config snapshot that the `spreed` document depends on. */
interface SpreedInputs {
  user: boolean;
  prefs?: EffectivePreferences;
  canCreate: boolean;
  canEnableSip: boolean;
  federationAllowed: boolean;
}

/** A capabilities document and the key naming all of its inputs (equal keys, equal documents). */
export interface CapabilitiesView {
  key: string;
  document: Record<string, unknown>;
  /** Nextcloud's ETag: md5 of the JSON of the document (docs/reference/capabilities-and-config.md#the-capabilities-document). */
  etag: string;
}

/** What the notifications app offers (Nextcloud's list minus test-push): clients check these. */
const NOTIFICATION_ENDPOINTS = ['list', 'get', 'delete', 'delete-all', 'icons', 'rich-strings', 'action-web', 'user-status', 'exists'];

/** Push to the proxy (docs/talk-apps.md "Push notifications"): registration, the subject's object data, silent deletes. */
const PUSH_FEATURES = ['devices', 'object-data', 'delete'];

/** The files_sharing block: the share API is there; public links, resharing, user and group shares are not. */
const FILES_SHARING = {
  api_enabled: true,
  public: { enabled: false },
  resharing: false,
  user: { send_mail: false, expire_date: { enabled: false } },
  group_sharing: false,
  group: { enabled: false, expire_date: { enabled: false } },
  default_permissions: 1,
  federation: { outgoing: false, incoming: false, expire_date: { enabled: false }, expire_date_supported: { enabled: false } },
  sharee: { query_lookup_default: false, always_show_unique: true },
};

export class CapabilitiesService {
  /**
   * Documents by key. The key holds the config generation and the
   * caller's inputs (preferences, group rules), all re-read on every request, so a cached
   * document is never stale, in any process; it only saves rebuilding (and re-hashing) the same
   * document.
   */
  private readonly cache = new BoundedMap<string, { document: Record<string, unknown>; etag: string }>(500);

  constructor(
    private readonly preferences: PreferencesService,
    /** WEB_PUSH: `webpush` joins the push features (subscriptions with an app password). */
    private readonly webPush = false,
  ) {}

  /** The caller's document with its cache key (docs/reference/capabilities-and-config.md#the-capabilities-document). */
  async view(ctx: RequestContext): Promise<CapabilitiesView> {
    const cfg = await ctx.config();
    // A user outside `allowed_groups` gets no spreed key at all (null inputs).
    const inputs = (await ctx.canUseTalk()) ? await this.inputs(ctx, cfg) : null;
    const key = `${cfg.generation}#${JSON.stringify(inputs)}`;
    let built = this.cache.get(key);
    if (built === undefined) {
      // Shared by every caller with the same key: frozen, so a change to it fails loudly.
      const document = deepFreeze(this.build(cfg, inputs));
      built = { document, etag: `"${createHash('md5').update(JSON.stringify(document)).digest('hex')}"` };
      this.cache.set(key, built);
    }
    return { key, ...built };
  }

  private async inputs(ctx: RequestContext, cfg: AppConfigSnapshot): Promise<SpreedInputs> {
    const user = ctx.user;
    if (!user) return { user: false, canCreate: false, canEnableSip: false, federationAllowed: false };
    return {
      user: true,
      prefs: effectivePreferences(await this.preferences.forUser(user.id), cfg),
      canCreate: await ctx.inGroupList(cfg.list('start_conversations')),
      canEnableSip: await ctx.inGroupList(cfg.list('sip_bridge_groups')),
      federationAllowed: cfg.bool('federation_enabled') && (await ctx.inGroupList(cfg.list('federation_allowed_groups'))),
    };
  }

  /** Pure: the whole document from the snapshot and the inputs (nothing else may be read here). */
  private build(cfg: AppConfigSnapshot, inputs: SpreedInputs | null): Record<string, unknown> {
    const capabilities: Record<string, unknown> = {
      core: { pollinterval: 60, 'webdav-root': 'remote.php/webdav', 'reference-api': false, 'reference-regex': '', 'mod-rewrite-working': false },
    };
    // Nextcloud's user_status app (participants area): statuses are served by Parley itself.
    capabilities.user_status = { enabled: true, restore: false, supports_emoji: true, supports_busy: false };
    // The notifications app (routes/notifications.ts) and its push features (routes/push.ts).
    capabilities.notifications = {
      'ocs-endpoints': NOTIFICATION_ENDPOINTS,
      push: this.webPush ? [...PUSH_FEATURES, 'webpush'] : PUSH_FEATURES,
      'admin-notifications': [],
    };
    // Nextcloud's files_sharing app, as far as Parley has it: shares into conversations only (docs/reference/files.md#capabilities).
    capabilities.files_sharing = FILES_SHARING;
    if (inputs) capabilities.spreed = this.spreed(cfg, inputs);
    return { version: SERVER_VERSION, capabilities };
  }

  private spreed(cfg: AppConfigSnapshot, inputs: SpreedInputs): Record<string, unknown> {
    const { user, prefs, canCreate, canEnableSip, federationAllowed } = inputs;
    const { features, local } = activeFeatures(cfg);
    const signalingMode = signalingModeOf(cfg);
    const recording = recordingAvailable(cfg);
    const call: Record<string, unknown> = {
      enabled: cfg.int('start_calls') !== 3,
      'breakout-rooms': cfg.bool('breakout_rooms'),
      recording,
      'recording-consent': recording ? cfg.int('recording_consent') : 0,
      'supported-reactions': SUPPORTED_REACTIONS,
      'predefined-backgrounds': [],
      'predefined-backgrounds-v2': [],
      'can-upload-background': user && cfg.bool('backgrounds_upload_users'),
      'sip-enabled': sipConfigured(cfg),
      'sip-dialout-enabled': cfg.get('sip_dialout') !== 'no',
      'can-enable-sip': canEnableSip,
      'start-without-media': prefs ? prefs.startWithoutMedia : cfg.bool('calls_start_without_media'),
      'max-duration': cfg.int('max_call_duration'),
      'blur-virtual-background': prefs ? prefs.blurVirtualBackground : false,
      'end-to-end-encryption': cfg.bool('call_end_to_end_encryption') && signalingMode === 'external',
      'live-transcription': false,
      'play-sounds': prefs ? prefs.playSounds : cfg.bool('guests_play_sounds'),
      'grid-limit': cfg.int('grid_videos_limit'),
      'grid-limit-enforced': cfg.bool('grid_videos_limit_enforced'),
    };
    // Users may share files into conversations (docs/reference/files.md#capabilities); guests have no files.
    const attachments: Record<string, unknown> = { allowed: user };
    if (prefs) attachments.folder = prefs.attachmentFolder;

    return {
      features,
      'features-local': local,
      config: {
        attachments,
        call,
        chat: {
          'max-length': CHAT_MAX_LENGTH,
          'read-privacy': prefs ? prefs.readPrivacy : 0,
          'has-translation-providers': false,
          'has-translation-task-providers': false,
          'typing-privacy': prefs ? prefs.typingPrivacy : 0,
          'summary-threshold': Math.max(1, cfg.int('summary_threshold')),
          style: prefs ? prefs.chatStyle : cfg.get('chat_style'),
        },
        conversations: {
          'can-create': canCreate,
          'force-passwords': cfg.bool('force_passwords'),
          'list-style': prefs ? prefs.listStyle : cfg.get('conversations_list_style'),
          'description-length': 2000,
          'retention-event': cfg.int('retention_event_rooms'),
          'retention-phone': cfg.int('retention_phone_rooms'),
          'retention-instant-meetings': cfg.int('retention_instant_meetings'),
        },
        federation: federationAllowed
          ? {
              enabled: true,
              'incoming-enabled': cfg.get('federation_incoming_enabled') === '1',
              'outgoing-enabled': cfg.get('federation_outgoing_enabled') === '1',
              'only-trusted-servers': cfg.get('federation_only_trusted_servers') === '1',
            }
          : { enabled: false, 'incoming-enabled': false, 'outgoing-enabled': false, 'only-trusted-servers': true },
        previews: { 'max-gif-size': cfg.int('max_gif_size') },
        signaling: {
          'session-ping-limit': cfg.int('session-ping-limit'),
          'hello-v2-token-key': cfg.raw(tokenKeyNames(tokenAlgOf(cfg)).pub) ?? '',
          mode: signalingMode,
        },
        experiments: { enabled: user ? cfg.int('experiments_users') : cfg.int('experiments_guests') },
        permissions: { 'max-default': 254, 'max-custom': 255, default: cfg.int('default_permissions') },
      },
      'config-local': CONFIG_LOCAL,
      version: TALK_VERSION,
    };
  }
}
