/**
 * Scheduled messages (docs/reference/chat.md#scheduled-messages, Talk's SendScheduledMessages, every
 * minute): messages whose time has come are posted as their authors.
 */
import type { JobDef } from './runner.js';

export const scheduledMessagesJob: JobDef = {
  name: 'scheduled-messages',
  intervalSeconds: 60,
  description: 'post the scheduled messages whose time has come',
  async run(services, now) {
    const { sent, failed } = await services.chatSchedule.sendDue(now);
    return `${sent} messages sent, ${failed} failed`;
  },
};
