/**
 * Inactivity lock (docs/reference/conversations.md#timers-and-jobs, Talk's LockInactiveRooms, daily): group and public
 * conversations idle for inactivity_lock_after_days become read-only; with
 * inactivity_enable_lobby the lobby goes on too.
 */
import type { JobDef } from './runner.js';

export const inactivityLockJob: JobDef = {
  name: 'inactivity-lock',
  intervalSeconds: 86400,
  description: 'make idle group and public conversations read-only (inactivity_lock_after_days)',
  async run(services, now) {
    return `${await services.housekeeping.lockInactiveRooms(now)} locked`;
  },
};
