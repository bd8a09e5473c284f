/**
 * SQL for scheduled messages (migration 0720): a user's list in a conversation, the due ones,
 * and the attendee's `has_scheduled_messages` count kept with every write.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import type { Database, ScheduledMessagesTable } from '../schema.js';
import { chunks } from '../chunks.js';

export type ScheduledMessageRow = Selectable<ScheduledMessagesTable>;
export type NewScheduledMessage = Insertable<ScheduledMessagesTable>;

/** The actor whose scheduled messages a statement reads or writes. */
export interface ScheduleOwner {
  roomId: number;
  actorType: string;
  actorId: string;
}

export class ScheduledMessagesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: NewScheduledMessage): Promise<ScheduledMessageRow> {
    return this.db.insertInto('scheduled_messages').values(row).returningAll().executeTakeFirstOrThrow();
  }

  /** The owner's scheduled messages in the conversation, failed ones (send_at 0) first, then by time. */
  list(owner: ScheduleOwner): Promise<ScheduledMessageRow[]> {
    return this.owned(owner).selectAll().orderBy('send_at').orderBy('id').execute();
  }

  find(owner: ScheduleOwner, id: number): Promise<ScheduledMessageRow | undefined> {
    return this.owned(owner).selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Edits the owner's message; undefined when it is not theirs (or gone). */
  async edit(owner: ScheduleOwner, id: number, patch: { message: string; send_at: number; silent: number }): Promise<ScheduledMessageRow | undefined> {
    return this.db
      .updateTable('scheduled_messages')
      .set({ ...patch, original_send_at: 0 })
      .where('id', '=', id)
      .where((eb) => eb.and(ownedBy(owner)))
      .returningAll()
      .executeTakeFirst();
  }

  /** Deletes the owner's message; false when it was not theirs (or gone). */
  async delete(owner: ScheduleOwner, id: number): Promise<boolean> {
    const r = await this.db
      .deleteFrom('scheduled_messages')
      .where('id', '=', id)
      .where((eb) => eb.and(ownedBy(owner)))
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Up to `limit` messages due at `now`, the earliest first, by the partial index scheduled_messages_due. */
  due(now: number, limit: number): Promise<ScheduledMessageRow[]> {
    return this.db
      .selectFrom('scheduled_messages')
      .selectAll()
      .where('send_at', '>', sql.lit(0))
      .where('send_at', '<=', now)
      .orderBy('send_at')
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  /**
   * Takes a due message for sending (one conditional statement: of two processes, one gets it).
   * It is marked failed until its post removes it, so a crash in between leaves it failed and
   * shown to its author rather than posted twice.
   */
  async claim(id: number): Promise<boolean> {
    const r = await this.db
      .updateTable('scheduled_messages')
      .set({ original_send_at: sql<number>`send_at`, send_at: 0 })
      .where('id', '=', id)
      .where('send_at', '>', sql.lit(0))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async remove(id: number): Promise<void> {
    await this.db.deleteFrom('scheduled_messages').where('id', '=', id).execute();
  }

  /**
   * Takes the owner's attendee row lock (a no-op update), first in every transaction that changes
   * their scheduled messages: the count that transaction ends with is then read after any other
   * such transaction committed, so two at once cannot leave a stale count.
   */
  async lockOwner(owner: ScheduleOwner): Promise<void> {
    await this.db
      .updateTable('attendees')
      .set((eb) => ({ has_scheduled_messages: eb.ref('has_scheduled_messages') }))
      .where((eb) => eb.and(ownedBy(owner)))
      .execute();
  }

  /** The owner's attendee row counts their scheduled messages in the conversation (one statement), or says -1 (a failure). */
  async recount(owner: ScheduleOwner, failed = false): Promise<void> {
    const count = sql<number>`(select count(*) from scheduled_messages s where s.room_id = attendees.room_id and s.actor_type = attendees.actor_type and s.actor_id = attendees.actor_id)`;
    await this.db
      .updateTable('attendees')
      .set({ has_scheduled_messages: failed ? -1 : count })
      .where((eb) => eb.and(ownedBy(owner)))
      .execute();
  }

  async deleteForRooms(roomIds: number[]): Promise<void> {
    for (const part of chunks([...new Set(roomIds)])) await this.db.deleteFrom('scheduled_messages').where('room_id', 'in', part).execute();
  }

  async deleteForUser(userId: string): Promise<void> {
    await this.db.deleteFrom('scheduled_messages').where('actor_type', '=', 'users').where('actor_id', '=', userId).execute();
  }

  private owned(owner: ScheduleOwner) {
    return this.db.selectFrom('scheduled_messages').where((eb) => eb.and(ownedBy(owner)));
  }
}

/** The owner's columns, as scheduled messages and attendee rows both name them. */
function ownedBy(owner: ScheduleOwner) {
  return { room_id: owner.roomId, actor_type: owner.actorType, actor_id: owner.actorId };
}
