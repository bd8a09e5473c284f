/**
 * The capabilities document (talk-reference.md §2): Nextcloud's shape, with `spreed` fed from
 * app config and the caller's preferences. Anonymous callers get the guest view; a user outside
 * `allowed_groups` gets no `spreed` key.
 */
import { activeFeatures } from '../domain/features.js';
import { sipConfigured } from '../domain/sip.js';
import { SERVER_VERSION, TALK_VERSION } from '../domain/version.js';
import type { AppConfigSnapshot } from './app-config.js';
import { effectivePreferences, type PreferencesService } from './preferences.js';
import type { RequestContext } from './request-context.js';

const SUPPORTED_REACTIONS = ['❤️', '🎉', '👏', '👋', '👍', '👎', '🔥', '😂', '🤩', '🤔', '😲', '😥'];

const CONFIG_LOCAL = {
  attachments: ['allowed', 'folder'],
  call: ['predefined-backgrounds', 'predefined-backgrounds-v2', 'can-upload-background', 'start-without-media', 'blur-virtual-background', 'play-sounds', 'grid-limit', 'grid-limit-enforced'],
  chat: ['read-privacy', 'has-translation-providers', 'has-translation-task-providers', 'typing-privacy', 'summary-threshold', 'style'],
  conversations: ['can-create', 'list-style', 'description-length'],
  federation: ['enabled', 'incoming-enabled', 'outgoing-enabled', 'only-trusted-servers'],
  previews: ['max-gif-size'],
  signaling: ['session-ping-limit', 'hello-v2-token-key', 'mode'],
  experiments: ['enabled'],
};

/** Kept here for callers that imported it from capabilities; the rule lives in domain/sip.ts. */
export { sipConfigured };

export class CapabilitiesService {
  constructor(private readonly preferences: PreferencesService) {}

  async document(ctx: RequestContext): Promise<Record<string, unknown>> {
    const cfg = await ctx.config();
    const capabilities: Record<string, unknown> = {
      core: { pollinterval: 60, 'webdav-root': 'remote.php/webdav', 'reference-api': false, 'reference-regex': '', 'mod-rewrite-working': false },
    };
    // Nextcloud's user_status app (participants area): statuses are served by Parley itself.
    capabilities.user_status = { enabled: true, restore: false, supports_emoji: true, supports_busy: false };
    if (await ctx.canUseTalk()) capabilities.spreed = await this.spreed(ctx, cfg);
    return { version: SERVER_VERSION, capabilities };
  }

  private async spreed(ctx: RequestContext, cfg: AppConfigSnapshot): Promise<Record<string, unknown>> {
    const user = ctx.user;
    const prefs = user ? effectivePreferences(await this.preferences.forUser(user.id), cfg) : undefined;
    const { features, local } = activeFeatures(cfg);
    const signalingMode = cfg.get('signaling_mode') || 'internal';
    const recordingServers = cfg.json<{ servers?: unknown[]; secret?: string }>('recording_servers', {});
    const recordingAvailable =
      signalingMode !== 'internal' && cfg.get('call_recording') === 'yes' && Array.isArray(recordingServers?.servers) &&
      recordingServers.servers.length > 0 && !!recordingServers.secret;
    const federationAllowed = cfg.bool('federation_enabled') && user !== undefined && (await ctx.inGroupList(cfg.list('federation_allowed_groups')));
    const canCreate = user !== undefined && (await ctx.inGroupList(cfg.list('start_conversations')));
    const canEnableSip = user !== undefined && (await ctx.inGroupList(cfg.list('sip_bridge_groups')));

    const call: Record<string, unknown> = {
      enabled: cfg.int('start_calls') !== 3,
      'breakout-rooms': cfg.bool('breakout_rooms'),
      recording: recordingAvailable,
      'recording-consent': recordingAvailable ? cfg.int('recording_consent') : 0,
      'supported-reactions': SUPPORTED_REACTIONS,
      'predefined-backgrounds': [],
      'predefined-backgrounds-v2': [],
      'can-upload-background': user !== undefined && cfg.bool('backgrounds_upload_users'),
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
    const attachments: Record<string, unknown> = { allowed: user !== undefined };
    if (prefs) attachments.folder = prefs.attachmentFolder;

    return {
      features,
      'features-local': local,
      config: {
        attachments,
        call,
        chat: {
          'max-length': 32000,
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
        signaling: { 'session-ping-limit': cfg.int('session-ping-limit'), mode: signalingMode },
        experiments: { enabled: user ? cfg.int('experiments_users') : cfg.int('experiments_guests') },
        permissions: { 'max-default': 254, 'max-custom': 255, default: cfg.int('default_permissions') },
      },
      'config-local': CONFIG_LOCAL,
      version: TALK_VERSION,
    };
  }
}
