/**
 * Every periodic job, in the order a scheduler tick tries them. Areas add their job here; `serve`
 * passes this list to startJobs and the `jobs:*` commands read it (nothing registers at load).
 */
import type { JobDef } from './runner.js';
import { staleSessionsJob } from './stale-sessions.js';
import { retentionJob } from './retention.js';
import { inactivityLockJob } from './inactivity-lock.js';
import { lobbyTimerJob } from './lobby-timer.js';
import { emptyRoomsJob } from './empty-rooms.js';
import { callDurationJob } from './call-duration.js';
import { messageExpirationJob } from './message-expiration.js';
import { chatRemindersJob } from './chat-reminders.js';
import { pinnedMessagesJob } from './pinned-messages.js';
import { scheduledMessagesJob } from './scheduled-messages.js';
import { rateLimitsJob } from './rate-limits.js';
import { pushDeliveryJob } from './push-delivery.js';
import { fileUploadsJob } from './file-uploads.js';

export const jobs: readonly JobDef[] = Object.freeze([
  staleSessionsJob,
  retentionJob,
  inactivityLockJob,
  lobbyTimerJob,
  emptyRoomsJob,
  callDurationJob,
  messageExpirationJob,
  chatRemindersJob,
  pinnedMessagesJob,
  scheduledMessagesJob,
  rateLimitsJob,
  pushDeliveryJob,
  fileUploadsJob,
]);

export { runJobIfDue, jobStates, startJobs, scaledInterval } from './runner.js';
export type { JobDef, RunOutcome } from './runner.js';
