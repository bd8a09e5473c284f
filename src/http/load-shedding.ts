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
 * Health and monitoring endpoints are never shed (a load balancer must see the process alive and
 * Prometheus must see the overload). OCS routes answer the OCS error envelope (the one error
 * catalog: `overloaded`); others the same data as JSON. Thresholds: docs/operators.md.
 */
import { performance as perfHooks } from 'node:perf_hooks';
import v8 from 'node:v8';
import type { FastifyInstance } from 'fastify';
import { overloaded } from '../domain/errors.js';
import { gauge, type MetricFamily } from '../domain/openmetrics.js';
import type { OverloadSettings } from '../settings.js';
import { AdmissionRate } from './admission-rate.js';
import { negotiateFormat, versionFromUrl } from './ocs/envelope.js';
import { sendOcsError } from './ocs/route.js';

const RESOLUTION_MS = 10;

/** Routes that are always served (and never counted against the admission rate). */
const EXEMPT = new Set(['/status.php', '/metrics']);

/** Samples the process's pressure; `admit()` decides each request; `render()` shows the verdicts in GET /metrics. */
export class PressureMonitor implements MetricFamily {
  /** The latest sample's verdict on the delay and heap signals: shed every request. */
  private overloaded = false;
  private readonly rate = new AdmissionRate();
  private sampledAt = performance.now();
  private readonly ticker: NodeJS.Timeout;
  private readonly timer: NodeJS.Timeout;
  private lastTick = performance.now();
  private lateSum = 0;
  private ticks = 0;
  private readonly maxHeapBytes: number;
  private lastElu = perfHooks.eventLoopUtilization();

  constructor(private readonly settings: OverloadSettings) {
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

  /** Whether a request arriving now is served (false: answer 503). */
  admit(): boolean {
    // With the utilization signal off the rate is never set, and admits every request.
    return !this.overloaded && this.rate.admit(performance.now());
  }

  /**
   * What the shedding does now, for GET /metrics: 503s are counted by status there, but only
   * these say whether they come from a sample past the delay or heap threshold (everything
   * shed) or from the admission rate, and at what rate a saturated process lets requests in.
   */
  render(): string[] {
    const rate = this.rate.perSecond;
    return [
      ...gauge('parley_shedding_all', 'Whether the latest sample was past the event-loop delay or heap threshold: every request is shed (1) or not (0)', [
        { value: this.overloaded ? 1 : 0 },
      ]),
      ...gauge('parley_admission_limited', 'Whether the event loop was saturated and requests are let in at an admission rate (1) or all let in (0)', [
        { value: rate === undefined ? 0 : 1 },
      ]),
      // No sample while nothing is limited: there is no rate then, and 0 would read as "none let in".
      ...gauge('parley_admission_rate', 'Requests per second let in while the admission rate is in force', rate === undefined ? [] : [{ value: rate }]),
    ];
  }

  private sample(): void {
    const delayMs = this.ticks === 0 ? 0 : this.lateSum / this.ticks;
    this.lateSum = 0;
    this.ticks = 0;
    const elu = perfHooks.eventLoopUtilization(this.lastElu);
    this.lastElu = perfHooks.eventLoopUtilization();
    const now = performance.now();
    const { maxEventLoopDelayMs, maxHeapPercent, maxEventLoopUtilization } = this.settings;
    if (maxEventLoopUtilization > 0) this.rate.sample(now, now - this.sampledAt, elu.utilization, maxEventLoopUtilization);
    this.sampledAt = now;
    this.overloaded = (maxEventLoopDelayMs > 0 && delayMs > maxEventLoopDelayMs) || (maxHeapPercent > 0 && process.memoryUsage().heapUsed > this.maxHeapBytes);
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
  db: { pool?: { waitingCount: number }; connectionWaitMs?: () => number },
): PressureMonitor | undefined {
  const dbQueue = settings.maxDbWaiting > 0 ? db.pool : undefined;
  const connectionWaitMs = settings.maxDbWaitMs > 0 ? db.connectionWaitMs : undefined;
  if (settings.maxEventLoopDelayMs === 0 && settings.maxEventLoopUtilization === 0 && settings.maxHeapPercent === 0 && !dbQueue && !connectionWaitMs)
    return undefined;
  const monitor = new PressureMonitor(settings);
  app.addHook('onClose', async () => monitor.stop());
  const dbBehind = () =>
    (dbQueue !== undefined && dbQueue.waitingCount > settings.maxDbWaiting) || (connectionWaitMs !== undefined && connectionWaitMs() > settings.maxDbWaitMs);
  app.addHook('onRequest', (request, reply, done) => {
    // The route is known here (Fastify routes before onRequest). An exempt request is decided
    // before the rate is asked, so a health check never counts as a refused request.
    if (EXEMPT.has(request.routeOptions.url ?? '') || (!dbBehind() && monitor.admit())) return done();
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
