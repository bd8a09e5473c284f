/**
 * Group commit for short independent write transactions on SQLite (chat sends): the
 * transactions asked for while the database's one connection is busy run together in ONE
 * SQLite transaction, one after the other, and are committed by one COMMIT.
 * A commit writes every page the transaction dirtied to the WAL; the sends of a burst dirty
 * the same pages (the room's row, the messages' last leaf and index pages), so one commit for
 * several sends writes those pages once instead of once per send (docs/history/benchmarks-2026-11.md "Chat
 * send: where the time goes").
 *
 * What each caller sees is what its own transaction would give it:
 * - its promise settles only after the COMMIT that made its writes durable (synchronous=NORMAL
 *   as every commit), so an answer is never sent for a write that could still be lost;
 * - the work runs in the order it was asked for, one at a time, on the connection that
 *   serialises every SQLite statement of the process: ids and "never backwards" pointers come
 *   out as they would from transactions run back to back;
 * - a work that fails rejects with its own error and leaves nothing: the group's transaction
 *   is rolled back and the other works run again in the next group, without it. A work is only
 *   database statements on the transaction it is given (it may be run more than once), so
 *   running it again is running it in a transaction of its own, as before; no savepoint per
 *   work is needed on the path where nothing fails (chat sends practically never do). A failing
 *   COMMIT rejects every work of the group: none of their writes is stored;
 * - nobody else reads their writes before the COMMIT: every other statement of the process
 *   waits for the connection (direct reads go through it while a transaction is open), and
 *   other processes read the last commit.
 *
 * A work may not wait for anything outside its transaction (another request, a timer): it
 * would hold the group's transaction and so every other write. On PostgreSQL each work is a
 * transaction of its own (concurrent sends run on several connections and order themselves
 * with the room's row lock).
 */
import type { Kysely } from 'kysely';
import type { Dialect } from './database.js';
import type { Database } from './schema.js';

export type TransactionWork<T> = (trx: Kysely<Database>) => Promise<T>;

/** Runs `work` in a transaction, possibly grouped with others (see the file comment). */
export interface CommitGroup {
  run<T>(work: TransactionWork<T>): Promise<T>;
}

interface Pending {
  work: TransactionWork<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** Works per group: bounds how long one transaction holds the connection. */
const MAX_GROUP = 32;

export function commitGroup(kysely: Kysely<Database>, dialect: Dialect): CommitGroup {
  if (dialect !== 'sqlite') return { run: (work) => kysely.transaction().execute(work) };
  return new SqliteCommitGroup(kysely);
}

class SqliteCommitGroup implements CommitGroup {
  private pending: Pending[] = [];
  private running = false;

  constructor(private readonly kysely: Kysely<Database>) {}

  run<T>(work: TransactionWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (v: unknown) => void, reject });
      if (!this.running) {
        this.running = true;
        void this.drain();
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) await this.runGroup();
    } finally {
      this.running = false;
    }
  }

  /** One transaction for the works waiting once it holds the connection. */
  private async runGroup(): Promise<void> {
    let group: Pending[] = [];
    const values: unknown[] = [];
    // The work that failed, and its own error (Kysely's ROLLBACK may fail too, when SQLite
    // dropped the transaction itself, and then its error is the one thrown).
    let failed: { index: number; error: unknown } | undefined;
    try {
      await this.kysely.transaction().execute(async (trx) => {
        // Taken once the connection is ours: every work asked for while it was busy joins.
        group = this.pending.splice(0, MAX_GROUP);
        for (let i = 0; i < group.length; i++) {
          try {
            values.push(await group[i].work(trx));
          } catch (error) {
            failed = { index: i, error };
            throw error;
          }
        }
      });
    } catch (error) {
      if (group.length === 0) {
        // BEGIN failed before any work was taken: the first waiting work fails as its own
        // transaction would have; the others try again.
        this.pending.shift()?.reject(error);
        return;
      }
      if (failed !== undefined) {
        // The group is rolled back: the failing work rejects with its error, the others run
        // again (ahead of newer ones) in a transaction without it.
        const { index, error: own } = failed;
        group[index].reject(own);
        this.pending.unshift(...group.filter((_, i) => i !== index));
        return;
      }
      // The COMMIT failed: nothing of the group is stored.
      for (const item of group) item.reject(error);
      return;
    }
    for (let i = 0; i < group.length; i++) group[i].resolve(values[i]);
  }
}
