/**
 * Revision counters on the rows a conversation record is made of (rooms, the caller's attendee
 * row, the room's last message), so a process can tell that a record it rendered earlier is
 * still what the database holds by reading three small numbers instead of the rows
 * (services/conversations/conversation-list.ts). Every UPDATE of such a row moves its `rev`, whatever wrote
 * it (any process, the CLI, an operator's SQL); a migration adding a column needs nothing more.
 *
 * Only the updated row itself is written, never another one: a trigger that bumped the room
 * from an attendee or message update would take the room's row lock after the attendee's or
 * message's on PostgreSQL, the reverse of the order chat posts and membership changes take
 * them, and could deadlock. What a record reads from other rows (the common read marker, the
 * last message's author's name) is read with the revisions instead, and the index added here
 * makes the common read marker one index seek per room (it was a scan of the room's users, on
 * every chat answer's X-Chat-Last-Common-Read too).
 *
 * Ids are never reused (AUTOINCREMENT, bigserial), so (id, rev) names one state of one row.
 */
import { sql } from 'kysely';
import type { ParleyMigration } from './helpers.js';

const TABLES = ['rooms', 'attendees', 'chat_messages'] as const;

export const recordRevisions: ParleyMigration = {
  name: '0711-record-revisions',
  async up({ db, dialect }) {
    for (const table of TABLES) {
      await db.schema
        .alterTable(table)
        .addColumn('rev', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    }
    if (dialect === 'postgres') {
      // BEFORE: the new version of the row carries the bump; no second write.
      await sql`
        CREATE OR REPLACE FUNCTION parley_rev_bump() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          NEW.rev := OLD.rev + 1;
          RETURN NEW;
        END
        $$`.execute(db);
      for (const table of TABLES) {
        await sql`CREATE TRIGGER parley_rev BEFORE UPDATE ON ${sql.table(table)} FOR EACH ROW EXECUTE FUNCTION parley_rev_bump()`.execute(db);
      }
    } else {
      // SQLite cannot change NEW in a BEFORE trigger: the row is updated again right after. The
      // WHEN keeps the trigger's own update from firing it again (recursive triggers are off by
      // default, this holds if they are turned on too).
      for (const table of TABLES) {
        await sql`CREATE TRIGGER ${sql.raw(`${table}_rev`)} AFTER UPDATE ON ${sql.table(table)} FOR EACH ROW WHEN NEW.rev = OLD.rev
          BEGIN UPDATE ${sql.table(table)} SET rev = OLD.rev + 1 WHERE id = NEW.id; END`.execute(db);
      }
    }
    // min(last_read_message) of a room's users who share their read status: one seek.
    await db.schema.createIndex('attendees_common_read').on('attendees').columns(['room_id', 'actor_type', 'read_privacy', 'last_read_message']).execute();
  },
};
