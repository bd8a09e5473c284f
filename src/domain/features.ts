/**
 * Capability feature names Parley advertises. A name goes into this list only when the feature it
 * gates works end to end: exactly what Parley implements, never more (docs/api.md "App
 * configuration and capabilities"). Each area adds its names to FEATURES when it lands (one list,
 * read by the capabilities service; nothing is added at module load). A feature with a condition
 * is advertised only while the condition holds.
 */
import type { AppConfigSnapshot } from '../app-config/snapshot.js';
import { dialOutEnabled, sipConfigured } from './sip.js';
import { signalingMode } from './signaling.js';

export interface FeatureDef {
  name: string;
  /** Also listed under `features-local` (docs/reference/capabilities-and-config.md#features). */
  local?: boolean;
  /** When present, the feature is advertised only if this returns true. */
  when?: (cfg: AppConfigSnapshot) => boolean;
}

export const FEATURES: readonly FeatureDef[] = Object.freeze([
  // Conversations (contract "Conversations").
  { name: 'conversation-v4' },
  { name: 'empty-group-room' },
  { name: 'last-room-activity' },
  { name: 'locked-one-to-one-rooms' },
  { name: 'start-call-flag' },
  // GET /room/{token} carries the other user's status of a one-to-one without includeStatus.
  { name: 'single-conversation-status' },
  // POST /room and POST /room/{token}/public take a password.
  { name: 'conversation-creation-password' },
  // POST /room takes every create-time option and the participants map (services/conversations/room-invitations.ts).
  { name: 'conversation-creation-all' },
  // Breakout rooms, while the admin allows them.
  { name: 'breakout-rooms-v1', when: (cfg) => cfg.bool('breakout_rooms') },
  // Conversation avatars.
  { name: 'avatar', local: true },
  // Conversation settings.
  { name: 'favorites', local: true },
  { name: 'notification-levels' },
  { name: 'read-only-rooms' },
  { name: 'listable-rooms', local: true },
  { name: 'webinary-lobby' },
  { name: 'room-description' },
  { name: 'notification-calls' },
  { name: 'conversation-permissions' },
  { name: 'message-expiration' },
  // The caller's own marks (POST/DELETE /room/{token}/archive|important|sensitive). Important
  // matters to push under "do not disturb", which Parley does not send; the mark is kept and shown.
  { name: 'archived-conversations-v2', local: true },
  // GET /room/note-to-self creates and answers the user's own notes conversation (type 6).
  { name: 'note-to-self', local: true },
  { name: 'important-conversations', local: true },
  { name: 'sensitive-conversations', local: true },
  // Participants and sessions.
  { name: 'guest-display-names' },
  { name: 'multi-room-users' },
  { name: 'invite-groups-and-mails' },
  { name: 'circles-support' },
  { name: 'publishing-permissions' },
  { name: 'session-state' },
  // Calls (docs/reference/capabilities-and-config.md#features); `recording-consent` gates the join's `recordingConsent`.
  { name: 'audio' },
  { name: 'video' },
  { name: 'in-call-flags' },
  { name: 'conversation-call-flags' },
  { name: 'silent-call' },
  // POST /call/{token}/ring/{attendeeId} notifies the rung user (notifications app).
  { name: 'send-call-notification' },
  { name: 'recording-consent' },
  // Signaling: /api/v3/signaling exists, guests may use it (docs/reference/capabilities-and-config.md#features).
  { name: 'signaling-v3' },
  { name: 'guest-signaling' },
  // Chat (docs/reference/capabilities-and-config.md#features), in Talk's order.
  { name: 'chat-v2' },
  { name: 'system-messages' },
  { name: 'mention-flag' },
  { name: 'chat-read-marker' },
  { name: 'chat-unread' },
  { name: 'chat-replies' },
  { name: 'chat-reference-id' },
  { name: 'delete-messages' },
  { name: 'rich-object-delete' },
  { name: 'silent-send' },
  { name: 'direct-mention-flag' },
  { name: 'chat-read-last' },
  { name: 'clear-history' },
  { name: 'chat-permission' },
  { name: 'chat-get-context' },
  // GET /chat/{token}?markNotificationsAsRead=0 keeps the mention notifications (docs/reference/chat.md#receiving).
  { name: 'chat-keep-notifications' },
  { name: 'delete-messages-unlimited' },
  { name: 'edit-messages' },
  { name: 'edit-messages-note-to-self' },
  { name: 'silent-send-state' },
  { name: 'markdown-messages' },
  { name: 'mention-permissions' },
  { name: 'chat-read-status', local: true },
  // Shared objects and the shared-items lists (docs/reference/chat.md#shared-objects), files among them.
  { name: 'rich-object-sharing' },
  { name: 'geo-location-sharing' },
  { name: 'rich-object-list-media' },
  // Files shared into conversations (docs/reference/files.md): voice messages, and a caption as the message (editable).
  { name: 'voice-message-sharing' },
  { name: 'media-caption' },
  // Message reminders (docs/reference/chat.md#reminders): set, read, delete, the upcoming list, and the job that notifies.
  { name: 'remind-me-later', local: true },
  { name: 'upcoming-reminders', local: true },
  // Scheduled messages (docs/reference/chat.md#scheduled-messages): list, schedule, edit, delete, and the job that posts them.
  { name: 'scheduled-messages', local: true },
  // Pinned messages (docs/reference/chat.md#pinned-messages): pin, unpin, hide for oneself, the `pinned` shared items, and
  // the job that ends pins.
  { name: 'pinned-messages' },
  // Reactions (docs/reference/chat.md#reactions): permission bit 256 does not exist here, so no `react-permission`.
  { name: 'reactions' },
  // Polls (docs/reference/chat.md#polls), with drafts: moderators save, list, edit and delete them.
  { name: 'talk-polls' },
  { name: 'talk-polls-drafts' },
  { name: 'edit-draft-poll' },
  // User settings.
  { name: 'typing-privacy' },
  // sip-support is advertised always, as Talk does (docs/reference/capabilities-and-config.md#features): its endpoints exist
  // and answer 412/501 until SIP is configured, and `config.call.sip-enabled` tells clients whether
  // it is. The PIN-less mode and dial-out are advertised only while they work.
  { name: 'sip-support' },
  { name: 'sip-support-nopin', when: sipConfigured },
  { name: 'sip-support-dialout', when: dialOutEnabled },
  // Federation (docs/federation.md): `federation-v1` is Talk's "basic chatting is possible with
  // federation": invitations across servers and the proxied conversation's chat, advertised while
  // federation is enabled. `federation-v2` ("federated session ids are used and calls are
  // possible with federation") is not: calls in federated conversations answer 406.
  { name: 'federation-v1', when: (cfg) => cfg.bool('federation_enabled') },
] satisfies FeatureDef[]);

const advertised = (f: FeatureDef, cfg: AppConfigSnapshot): boolean => !f.when || f.when(cfg);

export function activeFeatures(cfg: AppConfigSnapshot, features: readonly FeatureDef[] = FEATURES): { features: string[]; local: string[] } {
  const on = features.filter((f) => advertised(f, cfg));
  return { features: on.map((f) => f.name), local: on.filter((f) => f.local).map((f) => f.name) };
}

/** Call recording works: external signaling, `call_recording` on and a recording server with a secret. */
export function recordingAvailable(cfg: AppConfigSnapshot): boolean {
  if (signalingMode(cfg) === 'internal' || cfg.get('call_recording') !== 'yes') return false;
  const servers = cfg.json<{ servers?: unknown[]; secret?: string }>('recording_servers', {});
  return Array.isArray(servers?.servers) && servers.servers.length > 0 && !!servers.secret;
}

/**
 * Whether feature `name` is advertised under a configuration, as `activeFeatures` decides it, for
 * a route that exists only while it is (found once at registration, evaluated per request without
 * building the whole list): undefined when it is always advertised. A name no entry carries is a
 * programming error (the route would never exist), thrown at registration.
 */
export function featureCondition(name: string): ((cfg: AppConfigSnapshot) => boolean) | undefined {
  const defs = FEATURES.filter((f) => f.name === name);
  if (defs.length === 0) throw new Error(`unknown capability feature "${name}"`);
  if (defs.some((f) => !f.when)) return undefined;
  return (cfg) => defs.some((f) => advertised(f, cfg));
}
