/**
 * The outbox sweep: every process's outbox worker delivers right after the changes it made and
 * at each retry's due time; this job also drains rows written by other writers (the reminders
 * job, the CLI) and rows whose claim expired with a process that died mid-delivery.
 */
import type { JobDef } from './runner.js';

export const pushDeliveryJob: JobDef = {
  name: 'push-delivery',
  intervalSeconds: 60,
  description: 'deliver pushes left in the outbox (retries, other writers, crashed processes)',
  async run(services) {
    const claimed = await services.outbox.drainOnce();
    services.outbox.kick();
    return claimed ? `${claimed} outbox rows handled` : '';
  },
};
