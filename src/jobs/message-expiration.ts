/**
 * Message expiration (talk-chat-calls.md §1.6, Talk's ExpireChatMessages): deletes messages
 * whose conversation's `messageExpiration` has run out. Reads hide them before this runs.
 */
import type { JobDef } from './runner.js';

export const messageExpirationJob: JobDef = {
  name: 'message-expiration',
  intervalSeconds: 300,
  description: 'delete chat messages past their expiration',
  async run(services, now) {
    return `${await services.housekeeping.deleteExpiredMessages(now)} messages deleted`;
  },
};
