/**
 * Per-user preferences (Nextcloud user config of app `spreed`): reads, effective values and
 * validated writes. The rules live in domain/user-settings.ts (contract "User settings").
 */
import type { PreferencesRepository } from '../db/repositories/preferences.js';
import { validateProvisioningSetting, validateUserSetting } from '../domain/user-settings.js';
import type { AppConfigSnapshot } from './app-config.js';

export class PreferencesService {
  constructor(readonly repo: PreferencesRepository) {}

  forUser(userId: string): Promise<Map<string, string>> {
    return this.repo.forUser(userId);
  }

  /** `POST /settings/user` (contract "Settings"): validates, then stores; 400 stores nothing. */
  async setUserSetting(userId: string, key: string, value: string): Promise<void> {
    const v = validateUserSetting(key, value);
    if (v.key === 'read_status_privacy') await this.repo.setReadPrivacy(userId, v.value as '0' | '1');
    else await this.repo.set(userId, v.key, v.value);
  }

  /** Provisioning `POST /config/users/spreed/{configKey}` for the caller's own preference. */
  async setProvisioned(userId: string, key: string, value: string): Promise<void> {
    const v = validateProvisioningSetting(key, value);
    await this.repo.set(userId, v.key, v.value);
  }

  /** Provisioning `DELETE`: back to the app-config fallback. */
  async deleteProvisioned(userId: string, key: string): Promise<void> {
    const v = validateProvisioningSetting(key);
    await this.repo.delete(userId, v.key);
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
