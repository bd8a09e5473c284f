/**
 * Reactions (docs/reference/chat.md#reactions "Storage"): as in Talk, a reaction is a chat message row
 * of type `reaction` (message = the emoji, parent = the reacted message, expiry copied from
 * it). One actor reacts with one emoji once per message: held by this partial unique index,
 * so two concurrent adds of the same reaction insert one row (the other does nothing).
 * Its (parent_id, …) prefix also serves the reaction list of a message.
 */
import { sql } from 'kysely';
import type { ParleyMigration } from './helpers.js';

export const chatReactions: ParleyMigration = {
  name: '0703-chat-reactions',
  async up({ db }) {
    await db.schema
      .createIndex('chat_messages_reaction_unique')
      .unique()
      .on('chat_messages')
      .columns(['parent_id', 'actor_type', 'actor_id', 'message'])
      .where(sql.ref('message_type'), '=', 'reaction')
      .execute();
  },
};
