/**
 * Per-user preferences (Nextcloud user config of app `spreed`). Reading and effective values
 * live here; validation of writes belongs to the settings area (issue 5).
 */
import type { PreferencesRepository } from '../db/repositories/preferences.js';
import type { AppConfigSnapshot } from './app-config.js';

export class PreferencesService {
  constructor(readonly repo: PreferencesRepository) {}

  forUser(userId: string): Promise<Map<string, string>> {
    return this.repo.forUser(userId);
  }
}

/** Effective user-level values with their fallbacks (contract "User settings" table). */
export function effectivePreferences(prefs: ReadonlyMap<string, string> | undefined, cfg: AppConfigSnapshot) {
  const p = prefs ?? new Map<string, string>();
  const privacy = (k: string) => (p.has(k) ? (p.get(k) === '0' ? 0 : 1) : 0);
  const yesNo = (k: string, fallback: boolean) => (p.has(k) ? p.get(k) === 'yes' : fallback);
  return {
    attachmentFolder: p.get('attachment_folder') || cfg.get('default_attachment_folder') || '/Talk',
    readPrivacy: privacy('read_status_privacy'),
    typingPrivacy: privacy('typing_privacy'),
    playSounds: yesNo('play_sounds', true),
    startWithoutMedia: yesNo('calls_start_without_media', cfg.bool('calls_start_without_media')),
    blurVirtualBackground: yesNo('blur_virtual_background', false),
    listStyle: p.get('conversations_list_style') || cfg.get('conversations_list_style') || 'two-lines',
    chatStyle: p.get('chat_style') || cfg.get('chat_style') || 'split',
  };
}
