/**
 * Graceful overload: past capacity, requests are answered 503 with Retry-After at once, before
 * any authentication or database work, instead of joining a queue that only grows (every queued
 * request makes all later ones slower, until clients time out and throughput collapses). The
 * signal is the process's own pressure, as @fastify/under-pressure measures it: the share of the
 * last sample the event loop was busy (its utilization), the mean event-loop delay over it (how
 * late a 10 ms timer fires: a loop that cannot keep up is late for its timers; measured here
 * rather than with perf_hooks.monitorEventLoopDelay, which on Node 20 records only a sample or two
 * per interval, so one stall decided a whole sample) and the used heap against V8's limit.
 * A sample past the delay or heap threshold sheds every request until the next sample. A sample
 * past the utilization threshold (saturated on CPU) sets an admission rate instead
 * (admission-rate.ts): the process keeps serving about what it can and sheds the rest, rather
 * than alternating between saturated and idle samples.
 * The queue may instead grow in front of the database while the event loop stays on time: on
 * PostgreSQL the number of requests waiting for a pool connection, on SQLite how long the first
 * in line for the one connection has waited, both read at each request.
 *
 * A busy event loop is not overload by itself. Nothing is shed while the process warms up (its
 * first requests compile code and fill caches), and the event-loop signals count only while
 * work is actually queued, for SUSTAINED_SAMPLES samples in a row: requests arriving while at
 * least two others are in progress (long-polls waiting for a wake-up are idle, not work), that
 * wait longer than `minQueuedMs` (the loop's delay, before a request is even read, plus the mean
 * time the answered requests spent in the process, their waits for a wake-up left out). A
 * single client sending one request after another, a burst of idle long-polls or a few clients
 * answered within milliseconds never trip it.
 *
 * Health and monitoring endpoints are never shed (a load balancer must see the process alive and
 * Prometheus must see the overload). OCS routes answer the OCS error envelope (the one error
 * catalog: `overloaded`); others the same data as JSON. Every shed request is counted by reason
 * in GET /metrics, and the log says when shedding starts (with the reason and the measurements)
 * and stops. Thresholds: docs/operators.md.
 */
import { performance as perfHooks } from 'node:perf_hooks';
import v8 from 'node:v8';
import type { FastifyInstance } from 'fastify';
import { overloaded } from '../domain/errors.js';
import { Counter, gauge, type MetricFamily } from '../domain/openmetrics.js';
import type { OverloadSettings } from '../settings.js';
import { AdmissionRate } from './admission-rate.js';
import { negotiateFormat, versionFromUrl } from './ocs/envelope.js';
import { sendOcsError } from './ocs/route.js';

const RESOLUTION_MS = 10;

/** Routes that are always served (and never counted against the admission rate). */
const EXEMPT = new Set(['/status.php', '/metrics']);

/** Why a request was shed (GET /metrics label, log). */
export type ShedReason = 'event_loop_delay' | 'event_loop_utilization' | 'heap' | 'db_queue' | 'db_wait';
const REASONS: ShedReason[] = ['event_loop_delay', 'event_loop_utilization', 'heap', 'db_queue', 'db_wait'];

/** Consecutive samples an event-loop signal must hold (with work queued) before it sheds: a burst that drains is not overload. */
const SUSTAINED_SAMPLES = 3;
/** Requests found in progress by an arriving one, on average, below which nothing counts as queued (one client's request at a time). */
const MIN_QUEUED_REQUESTS = 2;

/** What the log is told (the app's logger). */
interface ShedLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/** Samples the process's pressure; `admit()` decides each request; `render()` shows the verdicts in GET /metrics. */
export class PressureMonitor implements MetricFamily {
  /** The latest samples' verdict on the delay and heap signals: shed every request (and why). */
  private overloaded: ShedReason | undefined;
  private readonly rate = new AdmissionRate();
  private readonly startedAt = performance.now();
  private sampledAt = performance.now();
  private readonly ticker: NodeJS.Timeout;
  private readonly timer: NodeJS.Timeout;
  private lastTick = performance.now();
  private lateSum = 0;
  private ticks = 0;
  private readonly maxHeapBytes: number;
  private lastElu = perfHooks.eventLoopUtilization();
  /** Requests admitted and not yet answered (long-polls included; `waiting` tells them apart). */
  private inProgress = 0;
  /** Requests that arrived in this sample (shed or not), and the sum of the requests each found in progress (not waiting). */
  private arrived = 0;
  private foundSum = 0;
  /** Requests answered in this sample, and their time in the process (ms, waits included). */
  private finished = 0;
  private finishedMs = 0;
  /** The long-polls' time spent waiting, at the previous sample. */
  private waitedBefore = 0;
  private lateStreak = 0;
  private saturatedStreak = 0;
  /** Shed requests by reason since start, and at the previous sample (the database reasons are logged from them). */
  private readonly shed = new Map<ShedReason, number>(REASONS.map((r) => [r, 0]));
  private shedBefore = new Map<ShedReason, number>(REASONS.map((r) => [r, 0]));
  /** Reasons in force at the previous sample (the log says when this changes). */
  private shedding = new Set<ShedReason>();
  /** The latest sample's measurements (log). */
  private measured = { delayMs: 0, utilization: 0, concurrency: 0, queuedMs: 0 };

  constructor(
    private readonly settings: OverloadSettings,
    /** Long-polls waiting for a wake-up in this process, and the time waits took (idle, not queued work). */
    private readonly waits: { readonly waiting: number; readonly waitedMs: number } = { waiting: 0, waitedMs: 0 },
    private readonly log?: ShedLog,
  ) {
    // A 10 ms resolution is what under-pressure uses: finer costs timer wake-ups for nothing.
    this.ticker = setInterval(() => {
      const now = performance.now();
      this.lateSum += Math.max(0, now - this.lastTick - RESOLUTION_MS);
      this.ticks++;
      this.lastTick = now;
    }, RESOLUTION_MS);
    this.ticker.unref();
    this.maxHeapBytes = (v8.getHeapStatistics().heap_size_limit * settings.maxHeapPercent) / 100;
    this.timer = setInterval(() => this.sample(), settings.sampleMs);
    this.timer.unref();
  }

  /** Still warming up: nothing is shed. */
  get warming(): boolean {
    return performance.now() - this.startedAt < this.settings.warmupMs;
  }

  /** Why a request arriving now is shed, or undefined when it is served. */
  verdict(): ShedReason | undefined {
    if (this.overloaded !== undefined) return this.overloaded;
    // With the utilization signal off the rate is never set, and admits every request.
    return this.rate.admit(performance.now()) ? undefined : 'event_loop_utilization';
  }

  /** A request arrived (before it is admitted or shed): how much work it finds in progress. */
  arriving(): void {
    this.arrived++;
    this.foundSum += Math.max(0, this.inProgress - this.waits.waiting);
  }

  /** A request was admitted; `done` once it is answered (or its connection closed). */
  started(): () => void {
    this.inProgress++;
    const begun = performance.now();
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.inProgress--;
      this.finished++;
      this.finishedMs += performance.now() - begun;
    };
  }

  /** A request was shed for `reason`. */
  count(reason: ShedReason): void {
    this.shed.set(reason, (this.shed.get(reason) ?? 0) + 1);
  }

  /**
   * What the shedding does now, for GET /metrics: 503s are counted by status there, but only
   * these say why (by reason), whether every request is shed, and at what rate a saturated
   * process lets requests in.
   */
  render(): string[] {
    const rate = this.rate.perSecond;
    const shed = new Counter(
      'parley_shed_requests',
      'Requests answered 503 overloaded, by reason: event_loop_delay, event_loop_utilization, heap, db_queue, db_wait',
    );
    for (const [reason, n] of this.shed) shed.inc({ reason }, n);
    return [
      ...shed.render(),
      ...gauge(
        'parley_shedding_all',
        'Whether the latest samples were past the event-loop delay (with work queued) or heap threshold: every request is shed (1) or not (0)',
        [{ value: this.overloaded ? 1 : 0 }],
      ),
      ...gauge(
        'parley_admission_limited',
        'Whether the event loop was saturated with work queued and requests are let in at an admission rate (1) or all let in (0)',
        [{ value: rate === undefined ? 0 : 1 }],
      ),
      // No sample while nothing is limited: there is no rate then, and 0 would read as "none let in".
      ...gauge('parley_admission_rate', 'Requests per second let in while the admission rate is in force', rate === undefined ? [] : [{ value: rate }]),
      ...gauge('parley_overload_warming_up', 'Whether the process is still warming up after start: nothing is shed (1) or shedding may apply (0)', [
        { value: this.warming ? 1 : 0 },
      ]),
    ];
  }

  private sample(): void {
    const delayMs = this.ticks === 0 ? 0 : this.lateSum / this.ticks;
    const concurrency = this.arrived === 0 ? 0 : this.foundSum / this.arrived;
    const waitedMs = this.waits.waitedMs;
    // Time in the process of the requests answered, without their waits for a wake-up.
    const inProcessMs = this.finished === 0 ? 0 : Math.max(0, this.finishedMs - (waitedMs - this.waitedBefore)) / this.finished;
    this.waitedBefore = waitedMs;
    this.lateSum = 0;
    this.ticks = 0;
    this.arrived = 0;
    this.foundSum = 0;
    this.finished = 0;
    this.finishedMs = 0;
    const elu = perfHooks.eventLoopUtilization(this.lastElu);
    this.lastElu = perfHooks.eventLoopUtilization();
    const now = performance.now();
    const ms = now - this.sampledAt;
    this.sampledAt = now;
    // A request waits for the loop before it is read (its delay), then in the process.
    const queuedMs = delayMs + inProcessMs;
    this.measured = { delayMs, utilization: elu.utilization, concurrency, queuedMs };
    const { maxEventLoopDelayMs, maxHeapPercent, maxEventLoopUtilization, minQueuedMs } = this.settings;
    const warming = this.warming;
    const queued = !warming && concurrency >= MIN_QUEUED_REQUESTS && queuedMs >= minQueuedMs;
    // Queued work starts the shedding; once shedding, the queue is what is being shed (it cannot
    // be seen any more), so the signal alone keeps it going until it calms down.
    const late = maxEventLoopDelayMs > 0 && delayMs > maxEventLoopDelayMs;
    const saturated = maxEventLoopUtilization > 0 && elu.utilization > maxEventLoopUtilization;
    const shedding = this.overloaded === 'event_loop_delay';
    const limited = this.rate.perSecond !== undefined;
    this.lateStreak = !warming && late && (queued || shedding) ? this.lateStreak + 1 : 0;
    this.saturatedStreak = !warming && saturated && (queued || limited) ? this.saturatedStreak + 1 : 0;
    if (maxEventLoopUtilization > 0) {
      // Saturated only when sustained with work queued (or already limited); otherwise a calm sample (at most at the threshold).
      const utilization = limited || this.saturatedStreak >= SUSTAINED_SAMPLES ? elu.utilization : Math.min(elu.utilization, maxEventLoopUtilization);
      this.rate.sample(now, ms, utilization, maxEventLoopUtilization);
    }
    const heap = !warming && maxHeapPercent > 0 && process.memoryUsage().heapUsed > this.maxHeapBytes;
    this.overloaded = heap ? 'heap' : (shedding && late) || this.lateStreak >= SUSTAINED_SAMPLES ? 'event_loop_delay' : undefined;
    this.logChanges();
  }

  /**
   * Logs when shedding starts, with the reasons and the measurements of the sample that decided
   * it (or, for the database queue, in which requests were shed), and when it stops.
   */
  private logChanges(): void {
    const now = new Set<ShedReason>();
    if (this.overloaded !== undefined) now.add(this.overloaded);
    if (this.rate.perSecond !== undefined) now.add('event_loop_utilization');
    for (const reason of ['db_queue', 'db_wait'] as const) if ((this.shed.get(reason) ?? 0) > (this.shedBefore.get(reason) ?? 0)) now.add(reason);
    this.shedBefore = new Map(this.shed);
    const m = this.measured;
    const fields = {
      delayMs: Math.round(m.delayMs),
      utilization: Math.round(m.utilization * 100) / 100,
      concurrency: Math.round(m.concurrency * 10) / 10,
      queuedMs: Math.round(m.queuedMs),
      admissionRate: this.rate.perSecond === undefined ? null : Math.round(this.rate.perSecond),
    };
    if ([...now].some((r) => !this.shedding.has(r))) this.log?.warn({ ...fields, reasons: [...now] }, `overloaded: shedding requests (${[...now].join(', ')})`);
    else if (now.size === 0 && this.shedding.size > 0) this.log?.info(fields, 'no longer shedding requests');
    this.shedding = now;
  }

  stop(): void {
    clearInterval(this.timer);
    clearInterval(this.ticker);
  }
}

/**
 * Registers the shedding hook (first, so a shed request costs nothing else). Returns the
 * pressure monitor, for GET /metrics; none when every signal is off.
 */
export function registerLoadShedding(
  app: FastifyInstance,
  settings: OverloadSettings,
  db: { pool?: { waitingCount: number }; connectionWaitMs?: () => number; wake?: { readonly waiting: number; readonly waitedMs: number } },
): PressureMonitor | undefined {
  const dbQueue = settings.maxDbWaiting > 0 ? db.pool : undefined;
  const connectionWaitMs = settings.maxDbWaitMs > 0 ? db.connectionWaitMs : undefined;
  if (settings.maxEventLoopDelayMs === 0 && settings.maxEventLoopUtilization === 0 && settings.maxHeapPercent === 0 && !dbQueue && !connectionWaitMs)
    return undefined;
  const monitor = new PressureMonitor(settings, db.wake, app.log);
  app.addHook('onClose', async () => monitor.stop());
  const dbBehind = (): ShedReason | undefined =>
    dbQueue !== undefined && dbQueue.waitingCount > settings.maxDbWaiting
      ? 'db_queue'
      : connectionWaitMs !== undefined && connectionWaitMs() > settings.maxDbWaitMs
        ? 'db_wait'
        : undefined;
  app.addHook('onRequest', (request, reply, done) => {
    // The route is known here (Fastify routes before onRequest). An exempt request is decided
    // before the rate is asked, so a health check never counts as a refused request.
    if (EXEMPT.has(request.routeOptions.url ?? '')) return done();
    monitor.arriving();
    const reason = monitor.warming ? undefined : (dbBehind() ?? monitor.verdict());
    if (reason === undefined) {
      // In progress until answered or its connection closes (whichever comes first).
      reply.raw.once('close', monitor.started());
      return done();
    }
    monitor.count(reason);
    const err = overloaded(settings.retryAfterSeconds);
    if (request.url.startsWith('/ocs/')) {
      const q = request.query as Record<string, unknown> | undefined;
      sendOcsError(reply, versionFromUrl(request.url), negotiateFormat(q?.format, request.headers.accept), err);
    } else {
      reply
        .code(err.status)
        .headers(err.headers ?? {})
        .send(err.data);
    }
  });
  return monitor;
}
