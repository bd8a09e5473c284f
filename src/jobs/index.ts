/**
 * Loads every job module (each calls registerJob). Areas add one import line here; `serve` and
 * the `jobs:*` commands import this file.
 */
import './stale-sessions.js';

export { jobs, registerJob, runJobIfDue, jobStates, startJobs } from './runner.js';
export type { JobDef, RunOutcome } from './runner.js';
