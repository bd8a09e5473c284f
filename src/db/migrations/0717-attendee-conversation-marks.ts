/**
 * A user's own marks on a conversation (docs/reference/capabilities-and-config.md#features and docs/reference/conversations.md#the-conversation-record: `archived-conversations-v2`,
 * `important-conversations`, `sensitive-conversations`): archived, important and sensitive, per
 * attendee as Talk keeps them (talk_attendees `archived`, `important`, `sensitive`). They are the
 * record's `isArchived`, `isImportant` and `isSensitive`; a sensitive conversation's notifications
 * and upcoming reminders leave its messages out.
 */
import type { ParleyMigration } from './helpers.js';

export const attendeeConversationMarks: ParleyMigration = {
  name: '0717-attendee-conversation-marks',
  async up({ db }) {
    for (const column of ['archived', 'important', 'sensitive'])
      await db.schema
        .alterTable('attendees')
        .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
  },
};
