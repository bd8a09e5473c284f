/**
 * Validation of per-user settings (contract "User settings"; docs/reference/capabilities-and-config.md#user-settings,
 * docs/reference/capabilities-and-config.md#user-settings). Pure: each function returns the value to store or throws the
 * catalog's 400 with `data.error` = `key` (unknown or misrouted key) or `value` (bad value).
 *
 * Two doors lead to the same per-user store:
 * - `POST /settings/user` takes attachment_folder, read_status_privacy, typing_privacy and
 *   play_sounds;
 * - the provisioning endpoint takes calls_start_without_media, blur_virtual_background,
 *   conversations_list_style and chat_style, plus the keys today's Talk web client writes for its
 *   own use (conversations_sort_order, conversations_group_mode): Parley stores those for the
 *   client and reads nothing from them, so any short lowercase word is accepted.
 * The contract says the provisioning keys "cannot be set through POST /settings/user", so they
 * are refused there (LATEST Talk accepts three of them; the contract wins).
 */
import { badRequest } from './errors.js';

/** Keys of `POST /settings/user`. */
export const USER_SETTING_KEYS = ['attachment_folder', 'read_status_privacy', 'typing_privacy', 'play_sounds'] as const;
export type UserSettingKey = (typeof USER_SETTING_KEYS)[number];

/** Keys of the provisioning endpoint (`/config/users/spreed/{configKey}`). */
export const PROVISIONING_KEYS = [
  'calls_start_without_media',
  'blur_virtual_background',
  'conversations_list_style',
  'chat_style',
  'conversations_sort_order',
  'conversations_group_mode',
] as const;
export type ProvisioningKey = (typeof PROVISIONING_KEYS)[number];

/** Longest accepted attachment folder path (characters). */
export const ATTACHMENT_FOLDER_MAX = 255;

const YES_NO = ['yes', 'no'];
/** A value only the client reads: a short lowercase word. */
const CLIENT_WORD = /^[a-z0-9_-]{1,32}$/;
/** Allowed values, or a pattern for the keys only the client interprets. */
const PROVISIONING_VALUES: Record<ProvisioningKey, string[] | RegExp> = {
  calls_start_without_media: YES_NO,
  blur_virtual_background: YES_NO,
  conversations_list_style: ['two-lines', 'compact'],
  chat_style: ['split', 'unified'],
  conversations_sort_order: CLIENT_WORD,
  conversations_group_mode: CLIENT_WORD,
};

export function isUserSettingKey(key: string): key is UserSettingKey {
  return (USER_SETTING_KEYS as readonly string[]).includes(key);
}

export function isProvisioningKey(key: string): key is ProvisioningKey {
  return (PROVISIONING_KEYS as readonly string[]).includes(key);
}

/**
 * An attachment folder is a path in the user's own tree (the service then makes sure it is a
 * folder there, creating it when missing: services/accounts/preferences.ts): it must be
 * absolute and already normalised (no `.`/`..` segments, no empty segments such as `//` or a
 * trailing `/`, no control characters or backslashes). `/` alone (the user's root) is allowed.
 */
export function attachmentFolderProblem(path: string): string | null {
  if (path === '') return 'attachment_folder must not be empty';
  if ([...path].length > ATTACHMENT_FOLDER_MAX) return `attachment_folder must be at most ${ATTACHMENT_FOLDER_MAX} characters`;
  if (!path.startsWith('/')) return 'attachment_folder must be an absolute path starting with /';
  if (path === '/') return null;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(path)) return 'attachment_folder must not contain control characters or backslashes';
  for (const segment of path.slice(1).split('/')) {
    if (segment === '') return 'attachment_folder must not contain empty segments (// or a trailing /)';
    if (segment === '.' || segment === '..') return 'attachment_folder must not contain . or .. segments';
    if (segment.trim() !== segment) return 'attachment_folder segments must not start or end with spaces';
  }
  return null;
}

/** Validates `POST /settings/user` input; returns the string to store. */
export function validateUserSetting(key: string, value: string): { key: UserSettingKey; value: string } {
  if (isProvisioningKey(key)) {
    throw badRequest('key', `${key} cannot be set here; use POST /ocs/v2.php/apps/provisioning_api/api/v1/config/users/spreed/${key}`);
  }
  if (!isUserSettingKey(key)) throw badRequest('key', `Unknown setting "${key}"; allowed: ${USER_SETTING_KEYS.join(', ')}`);
  switch (key) {
    case 'attachment_folder': {
      const problem = attachmentFolderProblem(value);
      if (problem) throw badRequest('value', problem);
      return { key, value };
    }
    case 'read_status_privacy':
    case 'typing_privacy':
      if (value !== '0' && value !== '1') throw badRequest('value', `${key} must be 0 (public) or 1 (private)`);
      return { key, value };
    case 'play_sounds':
      if (!YES_NO.includes(value)) throw badRequest('value', 'play_sounds must be yes or no');
      return { key, value };
  }
}

/** Validates a provisioning-endpoint key (and value, when given). */
export function validateProvisioningSetting(key: string, value?: string): { key: ProvisioningKey; value: string } {
  if (!isProvisioningKey(key)) {
    throw badRequest('key', `Unknown or not provisionable key "${key}"; allowed: ${PROVISIONING_KEYS.join(', ')}`);
  }
  if (value === undefined) return { key, value: '' };
  const allowed = PROVISIONING_VALUES[key];
  if (allowed instanceof RegExp) {
    if (!allowed.test(value)) throw badRequest('value', `${key} must be a lowercase word of 1 to 32 letters, digits, - or _`);
  } else if (!allowed.includes(value)) throw badRequest('value', `${key} must be one of: ${allowed.join(', ')}`);
  return { key, value };
}
