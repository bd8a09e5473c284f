/**
 * Pins with an end (docs/reference/chat.md#system-messages `message_unpinned`: "automatic unpin at `pinUntil` by
 * a job", Talk's UnpinMessage): every minute, the pins whose time ran out are unpinned by the
 * system.
 */
import type { JobDef } from './runner.js';

export const pinnedMessagesJob: JobDef = {
  name: 'pinned-messages',
  intervalSeconds: 60,
  description: 'unpin the messages whose pin ended',
  async run(services, now) {
    return `${await services.chatPins.unpinEnded(now)} messages unpinned`;
  },
};
