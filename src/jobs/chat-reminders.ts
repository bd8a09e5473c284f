/**
 * Message reminders (docs/reference/chat.md#reminders, Talk's BackgroundJob\Reminder, every
 * minute): reminders whose time has come become notifications of their users.
 */
import type { JobDef } from './runner.js';

export const chatRemindersJob: JobDef = {
  name: 'chat-reminders',
  intervalSeconds: 60,
  description: 'notify users of their message reminders that are due',
  async run(services, now) {
    return `${await services.chatReminders.notifyDue(now)} reminders notified`;
  },
};
