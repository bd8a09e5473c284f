/**
 * Every non-silent chat message looks up the users of its conversation who are notified of every
 * message (notification level "always", or "default" where that means always: Talk's
 * Chat\Notifier::notifyOtherParticipant). This index finds them by (room_id, notification_level)
 * instead of reading every attendee of the conversation, so the look-up costs the same in a
 * conversation of thousands, where almost everybody keeps the default.
 */
import type { ParleyMigration } from './helpers.js';

export const attendeeNotificationLevel: ParleyMigration = {
  name: '0716-attendee-notification-level',
  async up({ db }) {
    await db.schema.createIndex('attendees_notification_level').on('attendees').columns(['room_id', 'notification_level']).execute();
  },
};
