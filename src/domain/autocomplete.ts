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

/** The request's parameters. */
export interface AutocompleteQuery {
  search: string;
  itemType?: string;
  itemId?: string;
  sorter?: string;
  shareTypes: number[];
  limit: number;
  offset: number;
}

/** One share type's results: exact matches and the others (Nextcloud's "wide" results); `more`: the page was full. */
export interface AutocompleteSet {
  exact: AutocompleteEntry[];
  wide: AutocompleteEntry[];
  more?: boolean;
}

/** Talk's autocomplete sorter (docs/reference/chat.md#mention-autocomplete "Sorting"). */
export const TALK_CHAT_PARTICIPANTS_SORTER = 'talk_chat_participants';

/** Whether a piped `sorter` parameter ("a|b", top priority first) names Talk's sorter. */
export function asksTalkSorter(sorter: string | undefined): boolean {
  return sorter !== undefined && sorter.split('|').includes(TALK_CHAT_PARTICIPANTS_SORTER);
}

/**
 * Talk's Sorter::sort on the `users` results (docs/reference/chat.md#mention-autocomplete "Sorting"):
 * with a `search` term (Talk's mentions pass it), labels starting with it first; then users who
 * wrote in the chat, the latest writer first; the others keep their order.
 */
export function sortByLastComment<T extends { id: string; label: string }>(users: T[], lastCommentAt: ReadonlyMap<string, number>, search = ''): T[] {
  const term = search.toLowerCase();
  const starts = (u: T) => (term !== '' && u.label.toLowerCase().startsWith(term) ? 0 : 1);
  return [...users].sort((a, b) => starts(a) - starts(b) || (lastCommentAt.get(b.id) ?? -1) - (lastCommentAt.get(a.id) ?? -1));
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

/**
 * The query of the next page (Nextcloud's PaginationTrait: the same parameters, `offset` moved
 * on by `limit`, arrays as PHP's http_build_query writes them, absent ones left out).
 */
export function nextPageQuery(q: AutocompleteQuery): string {
  const parts: Array<[string, string]> = [['search', q.search]];
  if (q.itemType !== undefined) parts.push(['itemType', q.itemType]);
  if (q.itemId !== undefined) parts.push(['itemId', q.itemId]);
  if (q.sorter !== undefined) parts.push(['sorter', q.sorter]);
  q.shareTypes.forEach((t, i) => parts.push([`shareTypes[${i}]`, String(t)]));
  parts.push(['limit', String(q.limit)], ['offset', String(q.offset + q.limit)]);
  return parts.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
}
