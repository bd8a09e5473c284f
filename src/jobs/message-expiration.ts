/**
 * Message expiration (docs/reference/chat.md#expiration, Talk's ExpireChatMessages): deletes messages
 * whose conversation's `messageExpiration` has run out, the notifications about them and the
 * files shared with them. Reads
 * hide them before this runs.
 */
import type { JobDef } from './runner.js';

export const messageExpirationJob: JobDef = {
  name: 'message-expiration',
  intervalSeconds: 300,
  description: 'delete chat messages past their expiration',
  async run(services, now) {
    const deleted = await services.housekeeping.deleteExpiredMessages(now);
    // Their notifications go too, so phones get the silent deletes (push).
    if (deleted > 0) await services.notifications.forgetGoneMessages();
    // Files shared with expired messages are unshared (docs/reference/files.md#when-a-share-goes).
    const unshared = await services.fileShares.sweep(now);
    return unshared > 0 ? `${deleted} messages deleted, ${unshared} file shares removed` : `${deleted} messages deleted`;
  },
};
