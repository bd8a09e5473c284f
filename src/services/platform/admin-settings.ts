/**
 * What the admin settings page (docs/operators.md "Admin settings page") shows: every registry key
 * outside the Internal section with its display value, and the groups to choose from. Secrets
 * never leave here: plain secrets become `value: null` with `isSet`, server lists keep their
 * masked form (restoreMaskedSecrets puts the secret back when the page saves the list unchanged).
 */
import { INTERNAL_SECTION } from '../../app-config/registry.js';
import type { AppConfigService } from './app-config.js';
import type { DirectoryService } from '../accounts/directory.js';

export interface AdminPageValue {
  value: string | null;
  isSet: boolean;
  isDefault: boolean;
}

export interface AdminPageState {
  values: Record<string, AdminPageValue>;
  groups: Array<{ id: string; displayName: string }>;
  /** True when more groups exist than are listed. */
  groupsTruncated: boolean;
}

const MAX_GROUPS = 500;

export async function adminPageState(appConfig: AppConfigService, directory: DirectoryService): Promise<AdminPageState> {
  const values: Record<string, AdminPageValue> = {};
  for (const entry of await appConfig.list()) {
    const { def } = entry;
    if (def.prefix || def.section === INTERNAL_SECTION) continue;
    const writeOnly = def.secret && !def.editor;
    // An empty list or object counts as not set (the defaults of the json keys).
    const isSet = !entry.isDefault && !['', '[]', '{}'].includes(entry.value);
    values[entry.key] = { value: writeOnly ? null : entry.value, isSet, isDefault: entry.isDefault };
  }
  const rows = await directory.groups.list('', MAX_GROUPS + 1, 0);
  return {
    values,
    groups: rows.slice(0, MAX_GROUPS).map((g) => ({ id: g.id, displayName: g.display_name || g.id })),
    groupsTruncated: rows.length > MAX_GROUPS,
  };
}
