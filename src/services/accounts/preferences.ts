/**
 * Per-user preferences (Nextcloud user config of app `spreed`): reads, effective values and
 * validated writes. The rules live in domain/user-settings.ts (contract "User settings").
 */
import type { PreferencesRepository } from '../../db/repositories/preferences.js';
import { validateProvisioningSetting, validateUserSetting } from '../../domain/user-settings.js';
import { ApiError, badRequest } from '../../domain/errors.js';
import { pathFromText } from '../../domain/files/paths.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';

function requireSpreed(appId: string): void {
  if (appId !== 'spreed') throw badRequest('app', `Unknown app "${appId}"; only spreed is provided here`);
}

/** The user's file tree, where an attachment folder must be (docs/reference/files.md#where-received-files-appear). */
export interface AttachmentFolders {
  ensureFolder(userId: string, path: string): Promise<unknown>;
}

export class PreferencesService {
  constructor(
    readonly repo: PreferencesRepository,
    private readonly folders?: AttachmentFolders,
  ) {}

  forUser(userId: string): Promise<Map<string, string>> {
    return this.repo.forUser(userId);
  }

  /** `POST /settings/user` (contract "Settings"): validates, then stores; 400 stores nothing. */
  async setUserSetting(userId: string, key: string, value: string): Promise<void> {
    const v = validateUserSetting(key, value);
    if (v.key === 'attachment_folder' && this.folders) {
      // A folder of the user's own tree, created when missing; a file in the way is refused (contract "User settings").
      const parsed = pathFromText(v.value);
      try {
        if ('path' in parsed) await this.folders.ensureFolder(userId, parsed.path);
      } catch (err) {
        if (err instanceof ApiError && err.status === 400) throw badRequest('value', 'attachment_folder must be a folder: a file has that path');
        throw err;
      }
    }
    if (v.key === 'read_status_privacy') await this.repo.setReadPrivacy(userId, v.value as '0' | '1');
    else await this.repo.set(userId, v.key, v.value);
  }

  /**
   * Provisioning `POST /config/users/{appId}/{configKey}` for the caller's own preference: 400
   * `app` for an app other than spreed (only Talk's preferences live in Parley), 400
   * `configValue` without a value, 400 for an invalid key or value.
   */
  async setProvisioned(userId: string, appId: string, key: string, value: string | undefined): Promise<void> {
    requireSpreed(appId);
    if (value === undefined) throw badRequest('configValue', 'configValue is required');
    const v = validateProvisioningSetting(key, value);
    await this.repo.set(userId, v.key, v.value);
  }

  /** Provisioning `DELETE`: back to the app-config fallback (400 `app` / key as above). */
  async deleteProvisioned(userId: string, appId: string, key: string): Promise<void> {
    requireSpreed(appId);
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
