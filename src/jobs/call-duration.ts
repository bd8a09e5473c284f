/**
 * Calls (docs/reference/participants.md#sessions-and-calls, docs/reference/conversations.md#timers-and-jobs; Talk's MaximumCallDuration): with max_call_duration > 0,
 * calls running longer are ended for everyone; calls with nobody left in them end as well. An
 * ended call loses its call permissions (contract state table).
 */
import type { JobDef } from './runner.js';

export const callDurationJob: JobDef = {
  name: 'call-duration',
  intervalSeconds: 60,
  description: 'end calls past max_call_duration and calls nobody is in; reset call permissions',
  async run(services, now) {
    const { overlong, abandoned } = await services.housekeeping.endCalls(now);
    return `${overlong} past the maximum, ${abandoned} abandoned`;
  },
};
