/**
 * Nextcloud's collaborator autocomplete (`GET /core/autocomplete/get`, docs/api.md "Finding
 * people"), the rules without I/O: which share types exist, what counts as an exact match, how a
 * result reads (server's core/Controller/AutoCompleteController.php prepareResultArray) and in
 * which order results come (per share type in the order asked for, exact matches before the
 * others, as lib/private/Collaboration/Collaborators/SearchResult.php merges them).
 */

/** Share types Parley searches (OCP\Share\IShare::TYPE_*), with the result `source` of each. */
export const AutocompleteShareType = { USER: 0, GROUP: 1, EMAIL: 4, TEAM: 7 } as const;

export const AUTOCOMPLETE_SOURCE: Record<number, string> = {
  [AutocompleteShareType.USER]: 'users',
  [AutocompleteShareType.GROUP]: 'groups',
  [AutocompleteShareType.EMAIL]: 'emails',
  // The Teams app (circles) names its result set `circles`, as Talk's clients read it.
  [AutocompleteShareType.TEAM]: 'circles',
};

/** Bounds of the request (Nextcloud takes any number; Parley keeps each answer bounded). */
export const AUTOCOMPLETE_LIMIT_MAX = 200;
export const AUTOCOMPLETE_SEARCH_MAX = 255;
export const AUTOCOMPLETE_SHARE_TYPES_MAX = 16;

/** A user's status as the UserPlugin puts it into a result (`[]` → `''` when none). */
export interface AutocompleteStatus {
  status: string;
  message: string | null;
  icon: string | null;
  clearAt: number | null;
}

export interface AutocompleteEntry {
  id: string;
  label: string;
  icon: string;
  source: string;
  status: AutocompleteStatus | '';
  subline: string;
  shareWithDisplayNameUnique: string;
}

/** One share type's results: exact matches and the others (Nextcloud's "wide" results). */
export interface AutocompleteSet {
  exact: AutocompleteEntry[];
  wide: AutocompleteEntry[];
}

/** Case-insensitive equality as the plugins compare (strtolower; empty search never matches). */
export function matchesExactly(search: string, ...candidates: Array<string | null | undefined>): boolean {
  const lower = search.toLowerCase();
  return lower !== '' && candidates.some((c) => typeof c === 'string' && c !== '' && c.toLowerCase() === lower);
}

/** What Nextcloud's MailPlugin accepts as an e-mail address to offer by itself. */
export function looksLikeEmail(search: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(search);
}

/** The answer: per share type in the order asked for, its exact matches first. */
export function mergeAutocomplete(sets: AutocompleteSet[]): AutocompleteEntry[] {
  return sets.flatMap((s) => [...s.exact, ...s.wide]);
}
