/**
 * The rate limits of actions (Nextcloud's UserRateLimit and AnonRateLimit, as Talk sets them):
 * at most `limit` of an action per subject (a user, or an address for anonymous ones) within a
 * sliding window of `windowSeconds`. Counted in `user_rate_limits`
 * (db/repositories/user-rate-limits.ts); the `rate-limits` job forgets what is older than the
 * longest window.
 */
export interface RateLimit {
  /** The action's name in the table. */
  action: string;
  limit: number;
  windowSeconds: number;
}

/** Setting a message reminder: 60 an hour per user (Talk's ChatController::setReminder). */
export const REMINDER_RATE: RateLimit = { action: 'chat-reminder', limit: 60, windowSeconds: 3600 };

/**
 * A guest's message that mentions anybody: 50 a day per address (Talk's
 * ChatManager::RATE_LIMIT_GUEST_MENTIONS_LIMIT and _PERIOD, `talk-mentions`).
 */
export const GUEST_MENTIONS_RATE: RateLimit = { action: 'talk-mentions', limit: 50, windowSeconds: 24 * 60 * 60 };

/**
 * Pushes of notifications to one user's devices: 60 a minute. Nextcloud leaves the limit to the
 * proxy (its 429, which Parley honours too); a limit of its own keeps one noisy conversation
 * from getting this server throttled at the shared public proxy.
 */
export const PUSH_RATE: RateLimit = { action: 'push', limit: 60, windowSeconds: 60 };

/** The longest window: rows older than this count for no limit. */
export const LONGEST_RATE_WINDOW_SECONDS = Math.max(REMINDER_RATE.windowSeconds, GUEST_MENTIONS_RATE.windowSeconds);
