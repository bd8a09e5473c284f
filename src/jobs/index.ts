/**
 * Loads every job module (each calls registerJob). Areas add one import line here; `serve` and
 * the `jobs:*` commands import this file.
 */
import './stale-sessions.js';
import './retention.js';
import './inactivity-lock.js';
import './lobby-timer.js';
import './empty-rooms.js';
import './call-duration.js';
import './message-expiration.js';

export { jobs, registerJob, runJobIfDue, jobStates, startJobs, scaledInterval } from './runner.js';
export type { JobDef, RunOutcome } from './runner.js';
