/**
 * A conversation's `lastPinnedId` after a pin ended (docs/reference/conversations.md#the-conversation-record; migration 0719):
 * the message pinned last among those still pinned, 0 when none. Shared by the room repository
 * (unpin, deletion) and the expiration job's transaction.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * One statement over the rooms `ids`, read from the rows themselves (the partial index
 * chat_messages_pinned), so that no concurrent pin or unpin is lost between a read and a write.
 * Only rooms whose last pin is `ifLastPinned` when given, else every one with a last pin.
 */
export async function repointLastPinned(db: Kysely<Database>, ids: readonly number[], ifLastPinned?: number): Promise<void> {
  if (ids.length === 0) return;
  const newest = sql<number>`coalesce((select m.id from chat_messages m where m.room_id = rooms.id and m.pinned_id > 0 order by m.pinned_id desc limit 1), 0)`;
  let q = db.updateTable('rooms').set({ last_pinned_id: newest }).where('id', 'in', ids);
  q = ifLastPinned !== undefined ? q.where('last_pinned_id', '=', ifLastPinned) : q.where('last_pinned_id', '>', sql.lit(0));
  await q.execute();
}
