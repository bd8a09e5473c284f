/**
 * Stale sessions (docs/operators.md "Background jobs"; docs/reference/participants.md#sessions-and-calls): sessions not pinged
 * for 100 s are removed with the attendees that existed only for them (self-joined users, nameless
 * guests), calls nobody is in any more end, and cookie sessions unused for a week are forgotten.
 * Every step is idempotent, so a run that overlaps another process's is harmless.
 */
import type { JobDef } from './runner.js';

const COOKIE_SESSION_MAX_AGE = 7 * 24 * 3600;

export const staleSessionsJob: JobDef = {
  name: 'stale-sessions',
  intervalSeconds: 30,
  description: 'remove sessions without a ping for 100 s and forget unused cookie sessions',
  async run(services, now) {
    const sessions = await services.sessions.cleanupStale(now);
    const cookies = await services.clientSessions.prune(now, COOKIE_SESSION_MAX_AGE);
    return `${sessions} session(s), ${cookies} cookie session(s)`;
  },
};
