/**
 * Message reminders (docs/reference/chat.md#reminders, capabilities `remind-me-later` and
 * `upcoming-reminders`; Talk's ReminderService): a logged-in participant asks to be reminded of
 * a message at a time; when it is due the reminder job turns it into a notification (subject
 * `reminder`, object `reminder`/token) and the reminder is gone. Only users have reminders
 * (the routes answer 401 to anybody else).
 *
 * Refusals in Talk's order: the per-user rate limit of setting (60 an hour, 429) comes first, as
 * Nextcloud's middleware runs before Talk's; then the chat's participant and lobby checks
 * (ChatApiService.access: 404, 412); then 404 `message` for a message that is not in the
 * conversation (or has expired), and 404 `reminder` when reading one that is not set.
 */
import type { ChatMessageRead } from '../../db/repositories/chat-messages.js';
import type { ReminderRow } from '../../db/repositories/chat-reminders.js';
import type { NewNotification } from '../../db/repositories/notifications.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { Db } from '../../db/database.js';
import type { Repositories } from '../../db/repositories/index.js';
import { MessageType } from '../../domain/chat.js';
import { ActorType } from '../../domain/constants.js';
import { notFound, rateLimited } from '../../domain/errors.js';
import { REMINDER_RATE } from '../../domain/rate-limits.js';
import { nowSeconds } from '../../domain/time.js';
import type { Reminder, UpcomingReminder } from '../../presenters/chat-reminder.js';
import type { ChatApiService } from './chat-api.js';
import { authorParams, notificationRow } from '../notifications/notifications.js';
import type { RequestContext } from '../platform/request-context.js';
import type { RoomsService } from '../conversations/rooms.js';

/** Nextcloud's UserRateLimit on setting a reminder (Talk's ChatController::setReminder). */
/** Talk's Reminder::NUM_UPCOMING_REMINDERS. */
export const UPCOMING_REMINDERS = 10;
/** Due reminders notified per transaction by the job. */
const DUE_BATCH = 500;

export class ChatRemindersService {
  constructor(
    private readonly db: Db,
    private readonly repos: Repositories,
    private readonly chatApi: ChatApiService,
    private readonly rooms: RoomsService,
  ) {}

  /** POST …/reminder: sets (or moves) the caller's reminder; 429 past 60 in an hour. */
  async set(ctx: RequestContext, token: unknown, messageId: number, timestamp: number): Promise<Reminder> {
    const userId = ctx.userId!;
    const now = nowSeconds();
    if (!(await this.repos.userRateLimits.take(userId, REMINDER_RATE, now))) throw rateLimited('rate-limit', 'Too many reminders set in the last hour');
    const room = await this.messageRoom(ctx, token, messageId, now);
    // Under the conversation's row lock: one deleted since the lookup gets no reminder (404 `room`).
    const row = await this.rooms.lockedTransaction(room.id, (tx) => tx.chatReminders.set(userId, room.id, messageId, timestamp));
    return reminderOf(row, room.token);
  }

  /** GET …/reminder: 404 `reminder` when the caller has none for the message. */
  async get(ctx: RequestContext, token: unknown, messageId: number): Promise<Reminder> {
    const room = await this.messageRoom(ctx, token, messageId, nowSeconds());
    const row = await this.repos.chatReminders.find(ctx.userId!, room.id, messageId);
    if (!row) throw notFound('reminder', 'No reminder is set for this message');
    return reminderOf(row, room.token);
  }

  /**
   * DELETE …/reminder: 200 whether or not one was set. A reminder already due has become a
   * notification; deleting it then dismisses that notification (Talk's deleteReminder).
   */
  async delete(ctx: RequestContext, token: unknown, messageId: number): Promise<void> {
    const userId = ctx.userId!;
    const room = await this.messageRoom(ctx, token, messageId, nowSeconds());
    if (!(await this.repos.chatReminders.delete(userId, room.id, messageId)))
      await this.repos.notifications.deleteInRooms([room.id], { userIds: [userId], objectType: 'reminder', messageId });
  }

  /**
   * GET /chat/upcoming-reminders: the caller's next ten reminders, soonest first, each with its
   * conversation and message (presenters/chat-reminder.ts formats it for the caller). As Talk, the ten are taken first and then those of
   * conversations the caller left and of messages gone or expired are left out.
   */
  async upcoming(ctx: RequestContext): Promise<UpcomingReminder[]> {
    const userId = ctx.userId!;
    const reminders = await this.repos.chatReminders.upcoming(userId, UPCOMING_REMINDERS);
    if (reminders.length === 0) return [];
    const resolve = await this.resolver(reminders, nowSeconds());
    return reminders.flatMap((reminder) => {
      const found = resolve(reminder);
      return found ? [{ reminder, ...found }] : [];
    });
  }

  /**
   * The reminder job (Talk's BackgroundJob\Reminder, every minute): every reminder due before
   * `now` becomes a notification of its user, dated at the reminder's time. Reminders are taken
   * and notified in one transaction per batch (a second process finds them gone). None is
   * sent for a message deleted or expired meanwhile, or to a user no longer in the
   * conversation (Talk's notifier would drop it when read).
   */
  async notifyDue(now: number): Promise<number> {
    let notified = 0;
    for (;;) {
      const { taken, sent } = await this.db.kysely.transaction().execute(async (trx) => {
        const repos = this.repos.withTransaction(trx);
        const due = await repos.chatReminders.takeDue(now, DUE_BATCH);
        if (due.length === 0) return { taken: 0, sent: 0 };
        const resolve = await this.resolver(due, now, repos);
        const rows: NewNotification[] = [];
        for (const r of due) {
          const found = resolve(r);
          if (found && found.message.message_type !== MessageType.COMMENT_DELETED) rows.push(notificationOf(r, found.room, found.message));
        }
        await repos.notifications.upsert(rows);
        return { taken: due.length, sent: rows.length };
      });
      notified += sent;
      if (taken < DUE_BATCH) return notified;
    }
  }

  /** Deleted conversations take their reminders along (subscribed to `rooms.deleted`). */
  async forgetRooms(rooms: RoomRow[]): Promise<void> {
    await this.repos.chatReminders.deleteForRooms(rooms.map((r) => Number(r.id)));
  }

  /** A deleted user's reminders and rate-limit records go with them (subscribed to `user.deleting`). */
  async forgetUser(userId: string): Promise<void> {
    await this.repos.chatReminders.deleteForUser(userId);
    await this.repos.userRateLimits.deleteForUser(userId);
  }

  /** The caller's conversation (participant, lobby) once `messageId` is one of its messages; else 404 `message`. */
  private async messageRoom(ctx: RequestContext, token: unknown, messageId: number, now: number): Promise<RoomRow> {
    const { room } = await this.chatApi.access(ctx, token, { authenticated: true });
    const message = messageId > 0 ? await this.repos.chatMessages.findInRoom(room.id, messageId, now) : undefined;
    if (!message) throw notFound('message', 'The message does not exist');
    return room;
  }

  /**
   * Reads the reminders' rooms, their users' memberships and messages (three statements) and
   * answers, per reminder, its room, message and whether its user marked the conversation
   * sensitive, or undefined when its user left the conversation or the message is gone or
   * expired.
   */
  private async resolver(reminders: ReminderRow[], now: number, repos: Repositories = this.repos) {
    const roomIds = [...new Set(reminders.map((r) => Number(r.room_id)))];
    const rooms = new Map((await repos.rooms.findByIds(roomIds)).map((r) => [Number(r.id), r]));
    const userIds = [...new Set(reminders.map((r) => r.user_id))];
    const attendees = await repos.attendees.actorsInRooms([...rooms.keys()], ActorType.USERS, userIds);
    const members = new Map(attendees.map((a) => [`${a.room_id} ${a.actor_id}`, a]));
    const found = await repos.chatMessages.findByIds(
      reminders.map((r) => Number(r.message_id)),
      now,
    );
    const messages = new Map(found.map((m) => [m.id, m]));
    return (r: ReminderRow): { room: RoomRow; message: ChatMessageRead; sensitive: boolean } | undefined => {
      const room = rooms.get(Number(r.room_id));
      const message = messages.get(Number(r.message_id));
      const member = room && members.get(`${room.id} ${r.user_id}`);
      if (!room || !member || !message || message.room_id !== room.id) return undefined;
      return { room, message, sensitive: member.sensitive !== 0 };
    };
  }
}

function reminderOf(row: ReminderRow, token: string): Reminder {
  return { userId: row.user_id, token, messageId: Number(row.message_id), timestamp: Number(row.remind_at) };
}

/**
 * A due reminder's notification (Talk's ReminderService::executeReminders): subject parameters
 * name the message's author (`guestName` for a guest, as mentions keep it); the message itself
 * is read when the notification is (NotificationService.present), as it is then.
 */
function notificationOf(r: ReminderRow, room: RoomRow, message: ChatMessageRead): NewNotification {
  const author = authorParams({ type: message.actor_type, id: message.actor_id, displayName: message.actor_display_name });
  return notificationRow(room, r.user_id, {
    subject: 'reminder',
    object_type: 'reminder',
    message_id: Number(r.message_id),
    subject_params: JSON.stringify({ token: room.token, message: Number(r.message_id), ...author }),
    created_at: Number(r.remind_at),
  });
}
