/**
 * SQL for a conversation's shared items (table `chat_shared_items`, migration 0714;
 * docs/reference/chat.md#shared-items): the messages that share an object, by kind, newest
 * first. Every list walks (room_id, object_type, message_id) and joins the messages by key;
 * expired messages are left out as every read leaves them out.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { visibleMessages, type ChatMessageRead } from './chat-messages.js';

export type SharedItemRead = ChatMessageRead & { object_type: string };

export class ChatSharedItemsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async add(messageId: number, roomId: number, objectType: string): Promise<void> {
    await this.db.insertInto('chat_shared_items').values({ message_id: messageId, room_id: roomId, object_type: objectType }).execute();
  }

  /** The message is no longer a share (deleted): it leaves every list. */
  async remove(messageId: number): Promise<void> {
    await this.db.deleteFrom('chat_shared_items').where('message_id', '=', messageId).execute();
  }

  /** Up to `limit` shares of one kind, newest first, below `beforeId` (0: from the newest). */
  list(roomId: number, objectType: string, beforeId: number, limit: number, now: number): Promise<ChatMessageRead[]> {
    let q = visibleMessages(this.db, now)
      .innerJoin('chat_shared_items as s', 's.message_id', 'm.id')
      .where('s.room_id', '=', roomId)
      .where('s.object_type', '=', objectType);
    if (beforeId > 0) q = q.where('s.message_id', '<', beforeId);
    return q.orderBy('s.message_id', 'desc').limit(limit).execute();
  }

  /**
   * Up to `limit` of the newest shares of each kind in `objectTypes`, in one statement whatever
   * the number of kinds (a window over the index, partitioned by kind).
   */
  async overview(roomId: number, objectTypes: readonly string[], limit: number, now: number): Promise<SharedItemRead[]> {
    if (objectTypes.length === 0) return [];
    const newest = this.db
      .selectFrom('chat_shared_items')
      .select(['message_id', 'object_type', sql<number>`row_number() over (partition by object_type order by message_id desc)`.as('n')])
      .where('room_id', '=', roomId)
      .where('object_type', 'in', objectTypes);
    return visibleMessages(this.db, now)
      .innerJoin(newest.as('s'), 's.message_id', 'm.id')
      .select('s.object_type')
      .where('s.n', '<=', limit)
      .orderBy('s.message_id', 'desc')
      .execute();
  }
}
