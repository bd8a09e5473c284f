/**
 * The account record of Nextcloud's provisioning API (`GET /cloud/users/{userid}` and
 * `GET /cloud/user`, AUserData::getUserData). Parley stores id, display name, email, enabled
 * and groups; the profile fields Nextcloud also sends are present with their empty defaults
 * so clients that read them find the keys they expect.
 */
import type { UserRow } from '../db/repositories/users.js';

/** Profile properties Nextcloud sends (always empty in Parley) and their default scopes. */
const PROFILE_PROPERTIES: Array<[string, string]> = [
  ['phone', 'v2-local'],
  ['address', 'v2-local'],
  ['website', 'v2-local'],
  ['twitter', 'v2-local'],
  ['fediverse', 'v2-local'],
  ['organisation', 'v2-local'],
  ['role', 'v2-local'],
  ['headline', 'v2-local'],
  ['biography', 'v2-local'],
];

/** Nextcloud's "unlimited" quota (FileInfo::SPACE_UNLIMITED): Parley stores no files. */
const SPACE_UNLIMITED = -3;

export interface UserDetailsOptions {
  groups: string[];
  /** The caller looks at their own account: Nextcloud adds the `*Scope` keys. */
  includeScopes: boolean;
}

export function presentUserDetails(user: UserRow, opts: UserDetailsOptions): Record<string, unknown> {
  const email = user.email === '' ? null : user.email;
  const data: Record<string, unknown> = {
    enabled: user.enabled === 1,
    id: user.id,
    // Nextcloud reports milliseconds.
    lastLogin: Number(user.last_login) * 1000,
    backend: 'Database',
    subadmin: [],
    quota: { free: 0, used: 0, total: 0, relative: 0, quota: SPACE_UNLIMITED },
    manager: '',
  };
  if (opts.includeScopes) data.avatarScope = 'v2-federated';
  data.email = email;
  if (opts.includeScopes) data.emailScope = 'v2-federated';
  data.additional_mail = [];
  if (opts.includeScopes) data.additional_mailScope = [];
  data.displayname = user.display_name || user.id;
  data['display-name'] = data.displayname;
  if (opts.includeScopes) data.displaynameScope = 'v2-federated';
  for (const [name, scope] of PROFILE_PROPERTIES) {
    data[name] = '';
    if (opts.includeScopes) data[`${name}Scope`] = scope;
  }
  data.profile_enabled = '1';
  if (opts.includeScopes) data.profile_enabledScope = 'v2-local';
  data.groups = opts.groups;
  data.language = 'en';
  data.locale = '';
  data.notify_email = null;
  data.backendCapabilities = { setDisplayName: true, setPassword: true };
  return data;
}
