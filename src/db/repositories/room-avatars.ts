/** SQL for custom conversation avatars (table `room_avatars`, one row per conversation). */
import type { Kysely, Selectable } from 'kysely';
import type { Database, RoomAvatarsTable } from '../schema.js';

export type RoomAvatarRow = Selectable<RoomAvatarsTable>;

export class RoomAvatarsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  find(roomId: number): Promise<RoomAvatarRow | undefined> {
    return this.db.selectFrom('room_avatars').selectAll().where('room_id', '=', roomId).executeTakeFirst();
  }

  /**
   * Stores the image and points the conversation at its version, in one transaction; the new
   * version moves lastActivity too (an avatar change is activity, docs/reference/conversations.md#last-activity).
   * `within` runs in the same transaction (the chat's system message).
   */
  async save(roomId: number, row: Omit<RoomAvatarRow, 'room_id'>, avatarColumn: string, within?: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('room_avatars')
        .values({ room_id: roomId, ...row })
        .onConflict((oc) =>
          oc.column('room_id').doUpdateSet({ version: row.version, content_type: row.content_type, data: row.data, updated_at: row.updated_at }),
        )
        .execute();
      await trx.updateTable('rooms').set({ avatar: avatarColumn, last_activity: row.updated_at }).where('id', '=', roomId).execute();
      await within?.(trx);
    });
  }

  /** Stores the image of a conversation created in the same transaction (its avatar column is set by the insert). */
  async insert(roomId: number, row: Omit<RoomAvatarRow, 'room_id'>): Promise<void> {
    await this.db
      .insertInto('room_avatars')
      .values({ room_id: roomId, ...row })
      .execute();
  }

  /** Removes the image; the conversation falls back to the generated one. `within`: as in save. */
  async remove(roomId: number, now: number, within?: (trx: Kysely<Database>) => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('room_avatars').where('room_id', '=', roomId).execute();
      await trx.updateTable('rooms').set({ avatar: '', last_activity: now }).where('id', '=', roomId).execute();
      await within?.(trx);
    });
  }

  /** Images of deleted conversations. */
  async deleteForRooms(roomIds: number[]): Promise<void> {
    if (roomIds.length === 0) return;
    await this.db.deleteFrom('room_avatars').where('room_id', 'in', roomIds).execute();
  }
}
