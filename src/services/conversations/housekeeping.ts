/**
 * The work behind the background jobs that keep conversations tidy
 * (docs/reference/participants.md#sessions-and-calls, docs/reference/conversations.md#timers-and-jobs). Each method is one idempotent step that reads the app config
 * afresh, so a second process running the same step right after changes nothing more.
 */
import type { LobbyTimers } from './lobby-timers.js';
import type { HousekeepingRepository } from '../../db/repositories/housekeeping.js';
import type { CallService } from '../calls/calls.js';
import type { ChatMessagesRepository } from '../../db/repositories/chat-messages.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { AppConfigService } from '../platform/app-config.js';
import type { RoomsService } from './rooms.js';
import type { UserRateLimitsRepository } from '../../db/repositories/user-rate-limits.js';
import { LONGEST_RATE_WINDOW_SECONDS } from '../../domain/rate-limits.js';

const DAY = 86400;
const EMPTY_ROOMS_BATCH = 1000;

/** Object types with a retention setting: days (or seconds for classified conversations). */
export const RETENTION_RULES = [
  { objectType: 'phone_temporary', key: 'retention_phone_rooms', unit: DAY },
  { objectType: 'event', key: 'retention_event_rooms', unit: DAY },
  { objectType: 'instant_meeting', key: 'retention_instant_meetings', unit: DAY },
  { objectType: 'classified', key: 'retention_classified_rooms', unit: 1 },
] as const;

/** Event conversations carry `start#end` in objectId; they expire only after their end. */
function eventEnded(room: RoomRow, cutoff: number): boolean {
  const end = Number(room.object_id.split('#')[1]);
  return room.object_id.includes('#') && Number.isFinite(end) && end < cutoff;
}

export class HousekeepingService {
  constructor(
    private readonly repo: HousekeepingRepository,
    private readonly rooms: RoomsService,
    private readonly appConfig: AppConfigService,
    private readonly calls: CallService,
    private readonly messages: ChatMessagesRepository,
    private readonly lobbyTimers: LobbyTimers,
    private readonly rateLimits: UserRateLimitsRepository,
  ) {}

  /**
   * Rate-limit records older than the longest window (domain/rate-limits.ts): a subject's old
   * rows go when it acts again, those of subjects that never come back (a guest's address) here.
   */
  forgetOldRateLimits(now: number): Promise<number> {
    return this.rateLimits.deleteOlderThan(now - LONGEST_RATE_WINDOW_SECONDS);
  }

  /**
   * Message expiration (Talk's ExpireChatMessages, docs/reference/chat.md#expiration): deletes messages
   * (and reactions, which carry their message's expiry) past `expires_at`. One statement, so
   * two processes running it at once delete each row once; reads already hide them.
   */
  deleteExpiredMessages(now: number): Promise<number> {
    return this.messages.deleteExpired(now);
  }

  /**
   * Retention (Talk's ExpireObjectRooms): phone_temporary, event and instant_meeting rooms idle
   * for retention_* days, classified rooms idle for retention_classified_rooms seconds (0 turns
   * a kind off). Returns how many were deleted per object type.
   */
  async expireObjectRooms(now: number): Promise<Record<string, number>> {
    const cfg = await this.appConfig.snapshot();
    const out: Record<string, number> = {};
    for (const rule of RETENTION_RULES) {
      const amount = cfg.int(rule.key);
      if (amount <= 0) continue;
      const cutoff = now - amount * rule.unit;
      let rooms = await this.repo.expiringRooms(rule.objectType, cutoff);
      if (rule.objectType === 'event') rooms = rooms.filter((r) => eventEnded(r, cutoff));
      if (rooms.length) await this.rooms.deleteRooms(rooms);
      out[rule.objectType] = rooms.length;
    }
    return out;
  }

  /**
   * Inactivity lock (Talk's LockInactiveRooms): with inactivity_lock_after_days > 0, idle group
   * and public rooms become read-only, and with inactivity_enable_lobby also get the lobby with
   * its timer at now (Talk's timer; it lifts at the next read or lobby-timer run after that second).
   */
  async lockInactiveRooms(now: number): Promise<number> {
    const cfg = await this.appConfig.snapshot();
    const days = cfg.int('inactivity_lock_after_days');
    if (days <= 0) return 0;
    return this.repo.lockInactive(now - days * DAY, cfg.bool('inactivity_enable_lobby'), now);
  }

  /** Lobby timers: every lobby whose time has come is lifted, read or not. */
  async liftExpiredLobbies(now: number): Promise<number> {
    return (await this.lobbyTimers.lift('all', now)).length;
  }

  /** Empty conversations (Talk's RemoveEmptyRooms): no attendee left besides groups and teams. */
  async removeEmptyRooms(): Promise<number> {
    let total = 0;
    for (;;) {
      const empty = await this.repo.emptyRooms(EMPTY_ROOMS_BATCH);
      if (empty.length === 0) return total;
      await this.rooms.deleteRooms(empty);
      total += empty.length;
      if (empty.length < EMPTY_ROOMS_BATCH) return total;
    }
  }

  /**
   * Calls: with max_call_duration > 0 calls running that long are ended for everyone; calls
   * nobody is in any more end too. Ending resets the call permissions.
   */
  async endCalls(now: number): Promise<{ overlong: number; abandoned: number }> {
    const cfg = await this.appConfig.snapshot();
    const overlong = await this.calls.endOverlongCalls(cfg.int('max_call_duration'), now);
    const abandoned = await this.calls.endAbandonedCalls(now);
    return { overlong, abandoned };
  }
}
