/**
 * What GET /metrics exposes (docs/operators.md "Metrics"), in OpenMetrics: HTTP requests and
 * their latency by route and status, database query count and timings (Kysely's log event) and
 * PostgreSQL pool use, waiting long-polls, periodic job runs, the load shedding's state, and
 * conversation / participant / session gauges read at scrape time.
 * Counters are per process, as Prometheus expects of each scraped target.
 */
import type { Db } from '../../db/database.js';
import type { MetricsRepository } from '../../db/repositories/metrics.js';
import { Counter, counterValue, exposition, gauge, Histogram, type MetricFamily } from '../../domain/openmetrics.js';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 60];

/** Talk conversation types (docs/reference/constants.md#conversation-types) as metric labels. */
const ROOM_TYPES: Record<number, string> = { 1: 'one_to_one', 2: 'group', 3: 'public', 4: 'changelog', 5: 'former_one_to_one', 6: 'note_to_self' };

export class MetricsService {
  private readonly requests = new Counter('parley_http_requests', 'HTTP requests answered, by method, route pattern and status');
  private readonly latency = new Histogram(
    'parley_http_request_duration_seconds',
    'Time to answer an HTTP request, by method, route pattern and status',
    LATENCY_BUCKETS,
  );
  private readonly jobRuns = new Counter('parley_job_runs', 'Periodic job runs by this process, by job and result');
  private readonly jobTime = new Histogram('parley_job_duration_seconds', 'Time of periodic job runs, by job', JOB_BUCKETS);
  private readonly started = Date.now() / 1000;
  /** Families other services keep, and those added later (addFamily); a copy, so the caller's list stays as given. */
  private readonly families: MetricFamily[];

  constructor(
    private readonly db: Db,
    private readonly repo: MetricsRepository,
    /** Families other services keep (the brute-force throttle's secret checks). */
    families: readonly MetricFamily[] = [],
  ) {
    this.families = [...families];
  }

  /**
   * Adds a family kept by a part built after the services (the HTTP server's load shedding);
   * returns its removal, for when that part closes.
   */
  addFamily(family: MetricFamily): () => void {
    this.families.push(family);
    return () => {
      const at = this.families.indexOf(family);
      if (at >= 0) this.families.splice(at, 1);
    };
  }

  /** One finished periodic job run (jobs/runner.ts). */
  recordJobRun(name: string, status: 'ok' | 'failed', ms: number): void {
    this.jobRuns.inc({ job: name, result: status });
    this.jobTime.observe(ms / 1000, { job: name });
  }

  /** One answered request; `route` is the route pattern (never the URL, which may carry secrets). */
  recordRequest(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.latency.observe(seconds, labels);
  }

  /** The exposition text. Costs three COUNT queries. */
  async render(): Promise<string> {
    const [rooms, attendees, sessions] = await Promise.all([this.repo.roomsByType(), this.repo.attendeesByActorType(), this.repo.sessions()]);
    const lines: string[] = [
      ...this.requests.render(),
      ...this.latency.render(),
      ...counterValue('parley_db_queries', 'SQL statements sent since start (includes the ones of this scrape)', this.db.stats.queries),
      // Kept by the database layer as statements run (cache/query-stats.ts).
      ...this.db.stats.time.render(),
      ...this.db.stats.errors.render(),
      ...this.families.flatMap((f) => f.render()),
    ];
    // Chat and signaling long-polls waiting in this process (cache/wake.ts).
    lines.push(
      ...gauge('parley_waiting_long_polls', 'Long-polls (chat, signaling) waiting for a wake-up in this process', [
        { labels: {}, value: this.db.wake.waiting },
      ]),
    );
    const pool = this.db.pool;
    if (pool) {
      lines.push(
        ...gauge('parley_db_pool_connections', 'PostgreSQL pool connections by state', [
          { labels: { state: 'total' }, value: pool.totalCount },
          { labels: { state: 'idle' }, value: pool.idleCount },
          { labels: { state: 'waiting_clients' }, value: pool.waitingCount },
        ]),
      );
    }
    const readCache = this.db.readCache;
    if (readCache) {
      // 0 while the LISTEN connection is down: every per-request read then goes to the database.
      lines.push(
        ...gauge('parley_db_read_cache_active', 'PostgreSQL read cache in use (its LISTEN connection listens)', [{ value: readCache.active ? 1 : 0 }]),
      );
    }
    if (this.db.wake.health) lines.push(...this.db.wake.health.render());
    const memory = process.memoryUsage();
    lines.push(
      ...this.jobRuns.render(),
      ...this.jobTime.render(),
      ...gauge(
        'parley_conversations',
        'Conversations by type',
        rooms.map((r) => ({ labels: { type: ROOM_TYPES[r.type] ?? String(r.type) }, value: r.count })),
      ),
      ...gauge(
        'parley_participants',
        'Participants (attendees) by actor type',
        attendees.map((a) => ({ labels: { actor_type: a.actorType }, value: a.count })),
      ),
      ...gauge('parley_sessions', 'Talk sessions, by whether they are in a call', [
        { labels: { in_call: 'false' }, value: sessions.total - sessions.inCall },
        { labels: { in_call: 'true' }, value: sessions.inCall },
      ]),
      ...gauge('process_resident_memory_bytes', 'Resident memory of this process', [{ value: memory.rss }], 'bytes'),
      // What of the resident memory is the JavaScript heap (docs/benchmarks.md "Chat long-poll scale").
      ...gauge('nodejs_heap_size_total_bytes', 'JavaScript heap reserved by this process', [{ value: memory.heapTotal }], 'bytes'),
      ...gauge('nodejs_heap_size_used_bytes', 'JavaScript heap in use by this process', [{ value: memory.heapUsed }], 'bytes'),
      ...gauge('nodejs_external_memory_bytes', 'Memory of C++ objects bound to JavaScript objects (buffers included)', [{ value: memory.external }], 'bytes'),
      ...gauge('process_start_time_seconds', 'Start time of this process (unix seconds)', [{ value: Math.floor(this.started) }], 'seconds'),
    );
    return exposition(lines);
  }
}
