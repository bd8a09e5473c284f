/**
 * SQL for message reminders (table `chat_reminders`, migration 0715; docs/reference/chat.md#reminders
 * "reminder"): one per user and message. Setting one again moves its time in the same statement
 * (the unique key), and the reminder job takes the due ones by deleting them, so two processes
 * running the job at once never notify one reminder twice.
 */
import type { Kysely, Selectable } from 'kysely';
import { chunks } from '../chunks.js';
import type { ChatRemindersTable, Database } from '../schema.js';

export type ReminderRow = Selectable<ChatRemindersTable>;

export class ChatRemindersRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Sets the user's reminder of a message (a second one moves the first); returns the row. */
  async set(userId: string, roomId: number, messageId: number, remindAt: number): Promise<ReminderRow> {
    return this.db
      .insertInto('chat_reminders')
      .values({ user_id: userId, room_id: roomId, message_id: messageId, remind_at: remindAt })
      .onConflict((oc) => oc.columns(['user_id', 'room_id', 'message_id']).doUpdateSet((eb) => ({ remind_at: eb.ref('excluded.remind_at') })))
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  find(userId: string, roomId: number, messageId: number): Promise<ReminderRow | undefined> {
    return this.db
      .selectFrom('chat_reminders')
      .selectAll()
      .where('user_id', '=', userId)
      .where('room_id', '=', roomId)
      .where('message_id', '=', messageId)
      .executeTakeFirst();
  }

  /** Whether a reminder was there to delete. */
  async delete(userId: string, roomId: number, messageId: number): Promise<boolean> {
    const r = await this.db
      .deleteFrom('chat_reminders')
      .where('user_id', '=', userId)
      .where('room_id', '=', roomId)
      .where('message_id', '=', messageId)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** The user's next `limit` reminders, soonest first (Talk: ReminderMapper::findForUser). */
  upcoming(userId: string, limit: number): Promise<ReminderRow[]> {
    return this.db.selectFrom('chat_reminders').selectAll().where('user_id', '=', userId).orderBy('remind_at').orderBy('id').limit(limit).execute();
  }

  /**
   * Takes (deletes and returns) the reminders due before `now`, at most `limit`: a reminder is
   * taken by one caller only, and the caller notifies in the same transaction.
   */
  takeDue(now: number, limit: number): Promise<ReminderRow[]> {
    const due = this.db.selectFrom('chat_reminders').select('id').where('remind_at', '<', now).orderBy('remind_at').limit(limit);
    return this.db.deleteFrom('chat_reminders').where('id', 'in', due).returningAll().execute();
  }

  async deleteForRooms(roomIds: number[]): Promise<void> {
    for (const part of chunks(roomIds)) await this.db.deleteFrom('chat_reminders').where('room_id', 'in', part).execute();
  }

  async deleteForUser(userId: string): Promise<void> {
    await this.db.deleteFrom('chat_reminders').where('user_id', '=', userId).execute();
  }
}
