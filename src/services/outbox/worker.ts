/**
 * The outbox worker (docs/talk-apps.md "Push notifications"): delivers what Parley owes other
 * servers, written to the `outbox` table in the transaction of the change that caused it.
 *
 * Every process runs one. A wake-up (`kick`, after a change that may have written rows), or the
 * time of the next due row, starts a drain: claim due rows of each topic (one conditional UPDATE,
 * so a row is handed to one process at a time), give them to the topic's handler, then delete
 * the delivered and dropped rows and put the failed ones back with an exponential back-off
 * (given up after MAX_ATTEMPTS). A claim lasts LEASE_MS: a process that dies mid-delivery leaves
 * its rows to another process once it expired. Deliveries run off the request that caused them,
 * so a slow or failing receiver never slows or fails that request.
 */
import { randomBytes } from 'node:crypto';
import type { OutboxRepository, OutboxRow } from '../../db/repositories/outbox.js';
import { Counter } from '../../domain/openmetrics.js';
import type { OutboxSignal } from './signal.js';

/** What became of one claimed row. */
export type OutboxResult = 'sent' | 'retry' | 'drop';

export interface OutboxHandler {
  /** The rows' `topic`. */
  readonly topic: string;
  /**
   * The rows of one destination are delivered one at a time, in the order they were written,
   * by one process at a time (it holds the destination's lease, migration 0880); a row that
   * fails holds back the later rows of its destination until it is sent or given up.
   */
  readonly ordered?: boolean;
  /** Delivers the rows (batched as the receiver allows); a result for each row id, missing = retry. */
  deliver(rows: OutboxRow[]): Promise<Map<number, OutboxResult>>;
  /** Rows whose tries are spent (MAX_ATTEMPTS), before they are deleted: what their sender does then. */
  givenUp?(rows: OutboxRow[]): Promise<void>;
}

export interface OutboxLogger {
  warn(obj: Record<string, unknown>, msg: string): void;
}

/** Rows claimed per topic and drain. */
const BATCH = 200;
/** Ordered topics: destinations leased per drain, and rows claimed per destination (one at a time, each within its timeout, well inside LEASE_MS). */
const ORDERED_DESTINATIONS = 50;
const ORDERED_BATCH = 10;
/** How long a claim holds (ms): well above a delivery's timeouts. */
export const LEASE_MS = 60_000;
/** Attempts before a row is given up. */
export const MAX_ATTEMPTS = 8;
/** Longest wait between two looks at the table while rows are pending (ms). */
const MAX_SLEEP_MS = 60_000;

/** The delay before attempt `attempts + 1` (ms): 1 s, 2 s, 4 s, … at most an hour, with jitter. */
export function backoffMs(attempts: number, baseMs: number): number {
  const delay = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 3_600_000);
  return Math.round(delay * (0.8 + Math.random() * 0.4));
}

export class OutboxWorker {
  /** Rows by topic and result, for /metrics. */
  readonly rows = new Counter('parley_outbox_rows', 'Outbox rows handled by this process, by topic and result (sent, retry, dropped, given_up)');
  private readonly owner = `${process.pid}-${randomBytes(4).toString('hex')}`;
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly repo: OutboxRepository,
    private readonly handlers: readonly OutboxHandler[],
    private readonly log: OutboxLogger,
    signal: OutboxSignal,
    /** First retry delay (ms); doubled per attempt. */
    private readonly backoffBaseMs = 1000,
  ) {
    signal.listen(
      () => this.kick(),
      () => this.idle(),
    );
  }

  /** Something may have been written: drain soon (never waits, never throws). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves once the drain in progress (if any) has finished. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops scheduling; waits for the drain in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.idle();
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        let more = true;
        while (more && !this.stopped) more = (await this.drain()).more;
      } catch (err) {
        this.log.warn({ error: (err as Error)?.message ?? String(err) }, 'outbox drain failed');
      }
    } while (this.again && !this.stopped);
    await this.schedule();
  }

  /** Arms the timer for the next due row (or a claim that will expire). */
  private async schedule(): Promise<void> {
    if (this.stopped) return;
    let at: number | undefined;
    try {
      at = await this.repo.nextDue(
        this.handlers.map((h) => h.topic),
        this.handlers.filter((h) => h.ordered).map((h) => h.topic),
      );
    } catch {
      at = Date.now() + 1000;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (at === undefined) return;
    this.timer = setTimeout(() => this.kick(), Math.min(Math.max(at - Date.now(), 0), MAX_SLEEP_MS));
    this.timer.unref();
  }

  /** One claim and delivery per topic; how many rows were claimed. Also what the periodic job runs. */
  async drainOnce(): Promise<number> {
    return (await this.drain()).claimed;
  }

  /**
   * Every topic at once, so that a slow receiver of one (a signaling server timing out) does not
   * hold back another's deliveries; `more`: a topic claimed a full batch and may have more.
   */
  private async drain(): Promise<{ claimed: number; more: boolean }> {
    const each = await Promise.all(this.handlers.map((h) => (h.ordered ? this.drainOrdered(h) : this.drainTopic(h))));
    return { claimed: each.reduce((n, e) => n + e.claimed, 0), more: each.some((e) => e.more) };
  }

  private async drainTopic(handler: OutboxHandler): Promise<{ claimed: number; more: boolean }> {
    const now = Date.now();
    const rows = await this.repo.claim([handler.topic], this.owner, now, now + LEASE_MS, BATCH);
    if (rows.length === 0) return { claimed: 0, more: false };
    await this.settle(handler, rows, await this.deliver(handler, rows));
    return { claimed: rows.length, more: rows.length >= BATCH };
  }

  /**
   * An ordered topic: lease the destinations whose head is due, then deliver each one's rows in
   * order (destinations side by side), stopping a destination at its first row to retry; the
   * rows behind it go back untried. The leases end when their rows are settled.
   */
  private async drainOrdered(handler: OutboxHandler): Promise<{ claimed: number; more: boolean }> {
    const now = Date.now();
    const due = await this.repo.dueDestinations(handler.topic, now, ORDERED_DESTINATIONS);
    if (due.length === 0) return { claimed: 0, more: false };
    const held = await this.repo.lease(handler.topic, due, this.owner, now, now + LEASE_MS);
    let claimed = 0;
    let more = due.length >= ORDERED_DESTINATIONS;
    try {
      await Promise.all(
        held.map(async (destination) => {
          const rows = await this.repo.claimHead(handler.topic, destination, this.owner, now, now + LEASE_MS, ORDERED_BATCH);
          claimed += rows.length;
          if (rows.length >= ORDERED_BATCH) more = true;
          for (let i = 0; i < rows.length; i++) {
            const results = await this.deliver(handler, [rows[i]]);
            const kept = await this.settle(handler, [rows[i]], results);
            if (kept) {
              await this.repo.release(
                rows.slice(i + 1).map((r) => Number(r.id)),
                this.owner,
              );
              break;
            }
          }
        }),
      );
    } finally {
      await this.repo.releaseLeases(handler.topic, held, this.owner);
    }
    return { claimed, more };
  }

  private async deliver(handler: OutboxHandler, rows: OutboxRow[]): Promise<Map<number, OutboxResult>> {
    try {
      return await handler.deliver(rows);
    } catch (err) {
      this.log.warn({ topic: handler.topic, error: (err as Error)?.message ?? String(err) }, 'outbox delivery failed');
      return new Map();
    }
  }

  /**
   * Deletes the rows delivered, dropped or given up, and puts back those to retry with a
   * back-off; true when some row was put back.
   */
  private async settle(handler: OutboxHandler, rows: OutboxRow[], results: Map<number, OutboxResult>): Promise<boolean> {
    const done: number[] = [];
    const spent: OutboxRow[] = [];
    const retry = new Map<number, number[]>();
    for (const row of rows) {
      const id = Number(row.id);
      const result = results.get(id) ?? 'retry';
      if (result !== 'retry') {
        done.push(id);
        this.rows.inc({ topic: handler.topic, result: result === 'sent' ? 'sent' : 'dropped' });
      } else if (row.attempts >= MAX_ATTEMPTS) {
        done.push(id);
        spent.push(row);
        this.rows.inc({ topic: handler.topic, result: 'given_up' });
      } else {
        this.rows.inc({ topic: handler.topic, result: 'retry' });
        const due = Date.now() + backoffMs(row.attempts, this.backoffBaseMs);
        retry.set(due, [...(retry.get(due) ?? []), id]);
      }
    }
    if (spent.length > 0 && handler.givenUp) {
      try {
        await handler.givenUp(spent);
      } catch (err) {
        this.log.warn({ topic: handler.topic, error: (err as Error)?.message ?? String(err) }, 'outbox: handling given-up rows failed');
      }
    }
    await this.repo.finish(done, this.owner);
    for (const [due, ids] of retry) await this.repo.retryAt(ids, this.owner, due);
    return retry.size > 0;
  }
}
