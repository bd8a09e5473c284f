/**
 * User-status rules (Nextcloud user_status app; docs/api.md "Participants and sessions"), pure:
 * validation of what a user may set, and how a stored row reads at a given moment (automatic
 * statuses expire, messages clear themselves, invisible users look offline to others).
 */

/** What these rules read of a stored status (a `user_status` row). */
export interface StoredStatus {
  /** online, away, dnd, invisible, offline */
  status: string;
  status_timestamp: number;
  is_user_defined: number;
  custom_icon: string | null;
  custom_message: string | null;
  clear_at: number | null;
}

export const STATUS_TYPES = ['online', 'away', 'dnd', 'invisible', 'offline'] as const;
export type StatusType = (typeof STATUS_TYPES)[number];

/** Statuses a user chose that automatic "online" must not overwrite. */
export const PERSISTENT_STATUSES: StatusType[] = ['away', 'dnd', 'invisible'];

/** An automatic status older than this (seconds) reads as offline (Nextcloud: 15 minutes). */
export const STATUS_EXPIRY_SECONDS = 15 * 60;

export const MESSAGE_MAX_LENGTH = 80;

/**
 * The automatic "online" of GET /room rewrites a fresh automatic status at most this often
 * (Nextcloud's listener also skips fresh ones): a write on every list request would cost a
 * write each time and void every cached answer. The status then expires 14-15 minutes after
 * the last request instead of exactly 15.
 */
export const ONLINE_REFRESH_SECONDS = 60;

/** Whether the automatic "online" would change this row at `now` (see ONLINE_REFRESH_SECONDS). */
export function needsOnlineRefresh(row: StoredStatus, now: number): boolean {
  // A chosen away/dnd/invisible is never overwritten.
  if (row.is_user_defined && (PERSISTENT_STATUSES as string[]).includes(row.status)) return false;
  return !(row.status === 'online' && !row.is_user_defined && row.status_timestamp >= now - ONLINE_REFRESH_SECONDS);
}

export function isStatusType(s: string): s is StatusType {
  return (STATUS_TYPES as readonly string[]).includes(s);
}

const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|^[#*0-9]\uFE0F?\u20E3$/u;

/** One emoji (a single grapheme that is pictographic), as Nextcloud's EmojiService accepts. */
export function isSingleEmoji(s: string): boolean {
  const graphemes = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)];
  return graphemes.length === 1 && EMOJI.test(s);
}

/** A reason when the custom message cannot be set, else null. */
export function customMessageProblem(icon: string | null, message: string, clearAt: number | null, now: number): { field: string; message: string } | null {
  if (icon !== null && icon !== '' && !isSingleEmoji(icon)) return { field: 'statusIcon', message: 'Status-Icon is longer than one character' };
  if ([...message].length > MESSAGE_MAX_LENGTH) {
    return { field: 'message', message: `Message is longer than supported length of ${MESSAGE_MAX_LENGTH} characters` };
  }
  if (clearAt !== null && clearAt < now) return { field: 'clearAt', message: 'ClearAt is in the past' };
  return null;
}

/** The row as it reads at `now`: expired automatic statuses are offline, expired messages gone. */
export function effectiveStatus<T extends StoredStatus>(row: T, now: number): T {
  let out: T = row;
  if (row.status_timestamp < now - STATUS_EXPIRY_SECONDS && (!row.is_user_defined || row.status === 'online')) {
    out = { ...out, status: 'offline', is_user_defined: 0 } as T;
  }
  if (row.clear_at !== null && row.clear_at < now) {
    out = { ...out, custom_icon: null, custom_message: null, clear_at: null } as T;
  }
  return out;
}

/** What other people see of someone's status. */
export interface PublicStatus {
  status: string;
  icon: string | null;
  message: string | null;
  clearAt: number | null;
  /** The last second at which the row still reads like this without a change (not an API field). */
  stableUntil: number;
}

/**
 * The last second at which `effectiveStatus(row, t)` reads as it does at `now`: an automatic
 * status expires after STATUS_EXPIRY_SECONDS, a message at clearAt (Infinity: never by itself).
 * Caches of rendered records that show a status expire then.
 */
export function statusStableUntil(row: StoredStatus, now: number): number {
  let until = Infinity;
  const expiresAfter = row.status_timestamp + STATUS_EXPIRY_SECONDS;
  if (now <= expiresAfter && (!row.is_user_defined || row.status === 'online')) until = expiresAfter;
  if (row.clear_at !== null && now <= row.clear_at) until = Math.min(until, row.clear_at);
  return until;
}

export function publicStatus(row: StoredStatus, now: number): PublicStatus {
  const e = effectiveStatus(row, now);
  return {
    status: e.status === 'invisible' ? 'offline' : e.status,
    icon: e.custom_icon,
    message: e.custom_message,
    clearAt: e.clear_at,
    stableUntil: statusStableUntil(row, now),
  };
}
