/**
 * The name of whoever deleted a message (`chat_messages.deleted_by_name`): a deleted message
 * shows "Message deleted by {actor}" with its deleter as a rich object (Talk's
 * SystemMessage::parseDeletedMessage), and a moderator deleting someone else's message is not
 * the author whose current name the read already has. Stored at the deletion, as a pin stores
 * its pinner's name. Messages deleted before this migration take their deleter's current user
 * name.
 */
import { sql, type Kysely } from 'kysely';
import type { ParleyMigration } from './helpers.js';

/** The column (also what a test adds back after taking the columns before it off). */
export async function addDeletedByNameColumn(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('chat_messages')
    .addColumn('deleted_by_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .execute();
}

/** Takes the column off (a test takes chat_messages columns off and back in their migrated order). */
export async function dropDeletedByNameColumn(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('chat_messages').dropColumn('deleted_by_name').execute();
}

export const chatDeletedByName: ParleyMigration = {
  name: '0750-chat-deleted-by-name',
  async up({ db }) {
    await addDeletedByNameColumn(db);
    await sql`update chat_messages set deleted_by_name = coalesce((select u.display_name from users u where u.id = chat_messages.deleted_by_id), '')
      where message_type = 'comment_deleted' and deleted_by_type = 'users'`.execute(db);
  },
};
