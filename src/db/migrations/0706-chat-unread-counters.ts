/**
 * Unread chat counts kept as counters, so that a conversation record's `unreadMessages` costs
 * the same whatever the number of messages (docs/reference/conversations.md#the-conversation-record `unreadMessages`; the rule is
 * in repositories/chat-messages.ts `UNREAD_TYPES`):
 *
 * - `rooms.chat_count`: the room's messages of a counted type still in the table (expired ones
 *   included until the expiration job deletes them);
 * - `attendees.read_count`: how many of those have an id up to the attendee's read marker;
 * - `rooms.next_expiry`: the earliest `expires_at` among the room's counted messages (0 = none
 *   known), so a reader knows when some of them may be expired but not yet deleted.
 *
 * Unread = chat_count - read_count - (expired, not yet deleted, counted messages after the
 * marker; only looked at while next_expiry has passed). Backfilled from the messages.
 */
import { sql } from 'kysely';
import type { ParleyMigration } from './helpers.js';

/** The counted message types at the time of this migration (chat-messages.ts UNREAD_TYPES). */
const COUNTED = sql.raw(`('comment', 'object_shared', 'voice-message', 'record-audio', 'record-video')`);

export const chatUnreadCounters: ParleyMigration = {
  name: '0706-chat-unread-counters',
  async up({ db }) {
    await db.schema
      .alterTable('rooms')
      .addColumn('chat_count', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('rooms')
      .addColumn('next_expiry', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('attendees')
      .addColumn('read_count', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`update rooms set
        chat_count = (select count(*) from chat_messages m where m.room_id = rooms.id and m.message_type in ${COUNTED}),
        next_expiry = coalesce((select min(m.expires_at) from chat_messages m where m.room_id = rooms.id and m.expires_at > 0 and m.message_type in ${COUNTED}), 0)
      where exists (select 1 from chat_messages m where m.room_id = rooms.id)`.execute(db);
    await sql`update attendees set
        read_count = (select count(*) from chat_messages m where m.room_id = attendees.room_id and m.id <= attendees.last_read_message and m.message_type in ${COUNTED})
      where last_read_message > 0`.execute(db);
  },
};
