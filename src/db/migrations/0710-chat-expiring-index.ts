/**
 * The expiration job's index holds only messages that expire. Most messages never do
 * (expires_at 0), yet every post also wrote an index entry (0, id), one more page for each
 * commit to write; the job's delete (`expires_at > 0 and expires_at <= now`) is all that uses
 * the index, and a partial index on `expires_at > 0` serves it as before.
 */
import { sql } from 'kysely';
import type { ParleyMigration } from './helpers.js';

export const chatExpiringIndex: ParleyMigration = {
  name: '0710-chat-expiring-index',
  async up({ db }) {
    await db.schema.dropIndex('chat_messages_expires').execute();
    await db.schema.createIndex('chat_messages_expiring').on('chat_messages').column('expires_at').where(sql.ref('expires_at'), '>', 0).execute();
  },
};
