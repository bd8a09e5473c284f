/**
 * Graceful overload: past capacity, requests are answered 503 with Retry-After at once, before
 * any authentication or database work, instead of joining a queue that only grows (every queued
 * request makes all later ones slower, until clients time out and throughput collapses). The
 * signal is the process's own pressure, as @fastify/under-pressure measures it: the mean
 * event-loop delay over the last sample (perf_hooks.monitorEventLoopDelay; a loop that cannot
 * keep up is late for its timers) and the used heap against V8's limit. A sample's decision holds
 * until the next sample, so a busy moment sheds for one interval and then lets traffic in again.
 *
 * Health and monitoring endpoints are never shed (a load balancer must see the process alive and
 * Prometheus must see the overload). OCS routes answer the OCS error envelope (the one error
 * catalog: `overloaded`); others the same data as JSON. Thresholds: docs/operators.md.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import v8 from 'node:v8';
import type { FastifyInstance } from 'fastify';
import { overloaded } from '../domain/errors.js';
import type { OverloadSettings } from '../settings.js';
import { negotiateFormat, versionFromUrl } from './ocs/envelope.js';
import { sendOcsError } from './ocs/route.js';

/** Paths (without the query) that are always served. */
const EXEMPT = new Set(['/status.php', '/metrics']);

/** Samples the process's pressure; `overloaded` is the latest sample's verdict. */
export class PressureMonitor {
  overloaded = false;
  private readonly histogram: IntervalHistogram;
  private readonly timer: NodeJS.Timeout;
  private readonly maxHeapBytes: number;

  constructor(private readonly settings: OverloadSettings) {
    // A 10 ms resolution is what under-pressure uses: finer costs timer wake-ups for nothing.
    this.histogram = monitorEventLoopDelay({ resolution: 10 });
    this.histogram.enable();
    this.maxHeapBytes = (v8.getHeapStatistics().heap_size_limit * settings.maxHeapPercent) / 100;
    this.timer = setInterval(() => this.sample(), settings.sampleMs);
    this.timer.unref();
  }

  private sample(): void {
    // The histogram counts the resolution itself in every delay: take it off, as under-pressure does.
    const delayMs = Math.max(0, this.histogram.mean / 1e6 - 10);
    this.histogram.reset();
    const { maxEventLoopDelayMs, maxHeapPercent } = this.settings;
    this.overloaded = (maxEventLoopDelayMs > 0 && delayMs > maxEventLoopDelayMs) || (maxHeapPercent > 0 && process.memoryUsage().heapUsed > this.maxHeapBytes);
  }

  stop(): void {
    clearInterval(this.timer);
    this.histogram.disable();
  }
}

/** Registers the shedding hook (first, so a shed request costs nothing else). */
export function registerLoadShedding(app: FastifyInstance, settings: OverloadSettings): void {
  if (settings.maxEventLoopDelayMs === 0 && settings.maxHeapPercent === 0) return;
  const monitor = new PressureMonitor(settings);
  app.addHook('onClose', async () => monitor.stop());
  app.addHook('onRequest', (request, reply, done) => {
    if (!monitor.overloaded) return done();
    const at = request.url.indexOf('?');
    const pathOnly = at >= 0 ? request.url.slice(0, at) : request.url;
    if (EXEMPT.has(pathOnly)) return done();
    const err = overloaded(settings.retryAfterSeconds);
    if (pathOnly.startsWith('/ocs/')) {
      const q = request.query as Record<string, unknown> | undefined;
      sendOcsError(reply, versionFromUrl(request.url), negotiateFormat(q?.format, request.headers.accept), err);
    } else {
      reply
        .code(err.status)
        .headers(err.headers ?? {})
        .send(err.data);
    }
  });
}
