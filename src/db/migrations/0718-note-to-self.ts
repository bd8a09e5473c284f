/**
 * A user's note-to-self conversation (docs/reference/conversations.md#note-to-self, docs/reference/conversations.md#the-conversation-record
 * `GET /room/note-to-self`): type 6, objectType `note_to_self`, objectId the user's id, created on
 * first demand. One per user is held by this index (as rooms_one_to_one_pair holds one
 * one-to-one per pair): two first requests at once insert one room, the second finds it.
 */
import { sql } from 'kysely';
import type { ParleyMigration } from './helpers.js';

export const noteToSelf: ParleyMigration = {
  name: '0718-note-to-self',
  async up({ db }) {
    await sql`CREATE UNIQUE INDEX rooms_note_to_self ON rooms (object_id) WHERE type = 6`.execute(db);
  },
};
