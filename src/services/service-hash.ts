/**
 * X-Service-Hash (X-Nextcloud-Talk-Hash): sha1 over the hash-relevant settings, in the order
 * talk-behaviour.md §8 lists (LATEST), plus every other registry key marked Hash = Yes so that
 * a change to any of them is visible to clients.
 */
import { createHash } from 'node:crypto';
import { CONFIG_KEYS } from '../app-config/registry.js';
import { SERVER_VERSION_FULL, TALK_VERSION } from '../domain/version.js';
import type { AppConfigSnapshot } from './app-config.js';

const TALK_ORDER = [
  'stun_servers', 'turn_servers', 'signaling_servers', 'signaling_mode', 'signaling_ticket_secret', 'signaling_token_alg',
  '#privkey', '#pubkey', 'call_recording', 'recording_servers', 'allowed_groups', 'start_calls', 'start_conversations',
  'default_permissions', 'breakout_rooms', 'federation_enabled', 'enable_bridge', '#has_reference_id', 'sip_bridge_groups',
  'sip_bridge_dialin_info', 'sip_bridge_shared_secret', 'recording_consent', 'call_recording_transcription',
  'call_recording_summary', '#cachebuster', '#userCacheBuster', 'federation_incoming_enabled', 'federation_outgoing_enabled',
  'federation_only_trusted_servers', 'federation_allowed_groups',
];

export interface HashSubject {
  kind: 'user' | 'guest';
  /** The user's attachment folder preference (users only). */
  attachmentFolder?: string;
}

export function serviceHash(cfg: AppConfigSnapshot, subject: HashSubject): string {
  const alg = cfg.get('signaling_token_alg') || 'ES256';
  const parts: string[] = [SERVER_VERSION_FULL, TALK_VERSION];
  for (const key of TALK_ORDER) {
    if (key === '#privkey') parts.push(cfg.raw(`signaling_token_privkey_${alg.toLowerCase()}`) ?? '');
    else if (key === '#pubkey') parts.push(cfg.raw(`signaling_token_pubkey_${alg.toLowerCase()}`) ?? '');
    else if (key === '#has_reference_id') parts.push('yes');
    else if (key === '#cachebuster') parts.push('1');
    else if (key === '#userCacheBuster') parts.push('0');
    else parts.push(cfg.get(key));
  }
  // Hash keys Talk does not list but the contract marks Hash = Yes.
  for (const def of CONFIG_KEYS) {
    if (def.hash && !def.prefix && !TALK_ORDER.includes(def.key) && !def.key.startsWith('experiments_')) parts.push(cfg.get(def.key));
  }
  if (subject.kind === 'user') {
    parts.push(String(cfg.int('experiments_users')), subject.attachmentFolder ?? '');
  } else {
    parts.push(String(cfg.int('experiments_guests')));
  }
  return createHash('sha1').update(parts.join('#')).digest('hex');
}
