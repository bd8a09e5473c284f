/**
 * User status (docs/api.md "Participants and sessions"): the caller's own status through
 * Nextcloud's user_status endpoints, the automatic "online" of `GET /room`, and the statuses of
 * many users at once for the participant list and the conversation list (one query whatever the
 * number).
 */
import type { UserStatusRepository, UserStatusRow } from '../../db/repositories/user-status.js';
import { badRequest, invalidField, notFound } from '../../domain/errors.js';
import {
  PERSISTENT_STATUSES,
  customMessageProblem,
  effectiveStatus,
  isStatusType,
  needsOnlineRefresh,
  publicStatus,
  type PublicStatus,
} from '../../domain/user-status.js';
import { nowSeconds } from '../../domain/time.js';

/** Nextcloud's private status record (UserStatusController::formatStatus). */
export interface OwnStatus {
  userId: string;
  message: string | null;
  messageId: string | null;
  messageIsPredefined: boolean;
  icon: string | null;
  clearAt: number | null;
  status: string;
  statusIsUserDefined: boolean;
}

const now = nowSeconds;

function format(row: UserStatusRow): OwnStatus {
  const e = effectiveStatus(row, now());
  return {
    userId: e.user_id,
    message: e.custom_message,
    messageId: null,
    messageIsPredefined: false,
    icon: e.custom_icon,
    clearAt: e.clear_at,
    status: e.status,
    statusIsUserDefined: e.is_user_defined === 1,
  };
}

function blank(userId: string): UserStatusRow {
  return { user_id: userId, status: 'offline', status_timestamp: 0, is_user_defined: 0, custom_icon: null, custom_message: null, clear_at: null };
}

export class UserStatusService {
  constructor(private readonly repo: UserStatusRepository) {}

  /** A deleted user's status goes with them (subscribed to `user.deleting`). */
  forget(userId: string): Promise<void> {
    return this.repo.delete(userId);
  }

  /** GET .../user_status: 404 when the user never had a status (as Nextcloud). */
  async own(userId: string): Promise<OwnStatus> {
    const row = await this.repo.find(userId);
    if (!row) throw notFound('status', 'No status for the current user');
    return format(row);
  }

  /** PUT .../user_status/status: a status the user chose. */
  async setStatus(userId: string, statusType: string): Promise<OwnStatus> {
    if (!isStatusType(statusType)) throw badRequest('statusType', `Status-type "${statusType}" is not supported`);
    const row = { ...((await this.repo.find(userId)) ?? blank(userId)), status: statusType, status_timestamp: now(), is_user_defined: 1 };
    await this.repo.upsert(row);
    return format(row);
  }

  /**
   * PUT .../user_status/message/custom. An empty message without clearAt clears the message
   * (Nextcloud's rule); 404 when there is then no status at all.
   */
  async setCustomMessage(userId: string, icon: string | null, message: string | null, clearAt: number | null): Promise<OwnStatus> {
    const existing = await this.repo.find(userId);
    if ((message === null || message === '') && (clearAt === null || clearAt === 0)) {
      if (!existing) throw notFound('status', 'No status for the current user');
      const row = { ...existing, custom_icon: null, custom_message: null, clear_at: null };
      await this.repo.upsert(row);
      return format(row);
    }
    const problem = customMessageProblem(icon, message ?? '', clearAt, now());
    if (problem) throw invalidField(problem.field, problem.message);
    const row = { ...(existing ?? blank(userId)), custom_icon: icon === '' ? null : icon, custom_message: message ?? '', clear_at: clearAt };
    await this.repo.upsert(row);
    return format(row);
  }

  /** DELETE .../user_status/message. */
  async clearMessage(userId: string): Promise<void> {
    await this.repo.clearMessage(userId);
  }

  /** `GET /room` without noStatusUpdate: online, unless the user chose away/dnd/invisible. */
  async markOnline(userId: string): Promise<void> {
    const t = now();
    const row = await this.repo.find(userId);
    if (row && !needsOnlineRefresh(row, t)) return;
    await this.repo.markOnline(userId, t, PERSISTENT_STATUSES);
  }

  /**
   * Statuses of many users as others see them (invisible reads offline), in one query. Users
   * without a status are absent from the map.
   */
  async forUsers(userIds: string[]): Promise<Map<string, PublicStatus>> {
    const t = now();
    const rows = await this.repo.findMany([...new Set(userIds)]);
    return new Map(rows.map((r) => [r.user_id, publicStatus(r, t)]));
  }
}
