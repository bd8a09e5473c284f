/**
 * WAL checkpoints on a thread of their own (SQLite).
 *
 * A commit appends the pages it changed to the write-ahead log; a checkpoint copies them back
 * into the database file and, with synchronous=NORMAL, is the one place SQLite calls fsync.
 * Left to SQLite, the connection that commits runs it itself (every 1,000 pages by default):
 * on the event loop's thread, in the middle of a request, copying a thousand pages and waiting
 * for the disk. On a chat send that was half of what a commit cost (docs/history/benchmarks-2026-11.md "WAL
 * checkpoints off the event loop").
 *
 * Here a worker thread, with its own connection, runs a PASSIVE checkpoint every
 * `CHECKPOINT_INTERVAL_MS`: it copies what is in the log without taking the write lock and
 * without waiting for anybody, while the event loop goes on with requests on the second core.
 * The main connection keeps an automatic checkpoint, at `FALLBACK_PAGES`, only as a safety net:
 * - under a steady stream of writes the log is never entirely copied at the moment a writer
 *   starts, so SQLite never rewinds it; once it reaches the fallback size, the committing
 *   connection checkpoints (the few pages the worker has not copied yet) and the next write
 *   starts the log over. The log therefore stays under about `FALLBACK_PAGES` pages;
 * - if the worker could not open the database or died, the log is still bounded.
 *
 * What a reader sees and what is durable do not change: a checkpoint only moves committed pages
 * from the log to the file, whichever connection runs it. Several processes on one file each
 * run their own worker; SQLite lets one checkpoint run at a time and a PASSIVE one that finds
 * another running simply does nothing.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** How often the worker copies the log into the database file. */
export const CHECKPOINT_INTERVAL_MS = 100;
/** The main connection's own automatic checkpoint: the log's bound (about 40 MB of 4 KB pages). */
export const FALLBACK_PAGES = 10_000;

/**
 * Runs in the worker (CommonJS, given as source: the same in the built server and under the
 * tests' TypeScript loader). A checkpoint that fails is tried again at the next tick; its error
 * is posted to the main thread once, until a checkpoint succeeds again (ten a second would flood
 * the log). A worker that cannot open the database ends (an 'error' event).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { fileMustExist: true });
let reported;
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    reported = undefined;
  } catch (e) {
    const message = String(e && e.message ? e.message : e);
    if (message !== reported) parentPort.postMessage({ error: message });
    reported = message;
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops the worker after its current checkpoint and closes its connection. */
  close(): Promise<void>;
}

/** Told of what goes wrong in the worker (the process's logger, as a warning). */
export type CheckpointProblem = (message: string) => void;

/**
 * Moves `database`'s checkpoints to a worker thread (see the file comment). `database` must be
 * in WAL mode and be a file (`file` is its path). `problem` hears of a failing checkpoint and of
 * a worker that ended: neither loses data (the fallback bounds the log), but an operator should
 * know why the log grows.
 */
export function startCheckpointer(database: SQLite.Database, file: string, problem: CheckpointProblem = () => {}): Checkpointer {
  database.pragma(`wal_autocheckpoint = ${FALLBACK_PAGES}`);
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file, intervalMs: CHECKPOINT_INTERVAL_MS } });
  worker.on('message', (m: { error?: string }) => {
    if (m.error !== undefined) problem(`WAL checkpoint failed (tried again every ${CHECKPOINT_INTERVAL_MS} ms): ${m.error}`);
  });
  // A failed worker leaves the fallback in charge; it must not take the process down.
  worker.on('error', (e) => problem(`the WAL checkpoint worker stopped; the committing connection checkpoints from now on: ${e.message}`));
  // Never what keeps a process alive (a command that forgot to close still exits).
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    close: async () => {
      // Held by its exit now, or a process with nothing else left would end before it.
      worker.ref();
      worker.postMessage('close');
      await exited;
    },
  };
}
