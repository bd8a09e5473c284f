/**
 * What the database layer measures about its own statements: how many were sent (tests assert
 * queries per request) and how long each took (GET /metrics). The Db owns one and fills it as
 * statements run, so nothing subscribes to it after construction; MetricsService renders it.
 */
import { Counter, Histogram } from '../domain/openmetrics.js';

const QUERY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export class QueryStats {
  /** Every SQL statement sent, including the uncached direct reads and stamp reads. */
  queries = 0;
  readonly time = new Histogram('parley_db_query_duration_seconds', 'Time of SQL statements sent through Kysely', QUERY_BUCKETS);
  readonly errors = new Counter('parley_db_query_errors', 'SQL statements that failed');

  /**
   * The SQL text of every statement recorded while set (tests switch it on around a request:
   * the reviewed query snapshots, test/query-snapshots.test.ts). Undefined, the default: nothing
   * is kept, and every caller passes a string it already holds, so the hot path does no string work.
   */
  statements: string[] | undefined;

  /** One timed statement (Kysely's log event, or a direct read measured around the call) and its SQL text. */
  record(ms: number, failed: boolean, sql: string): void {
    this.queries++;
    if (this.statements !== undefined) this.statements.push(sql);
    this.time.observe(ms / 1000);
    if (failed) this.errors.inc();
  }
}
