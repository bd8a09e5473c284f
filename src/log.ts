/**
 * The process's one logger (pino, JSON lines), made where the process starts and handed to both
 * the services (mail delivery lines) and the HTTP server (request lines), so nothing swaps a
 * logger in after construction. `serve` writes to stdout; commands write to stderr, keeping
 * stdout for their output (docs/operators.md "Logs").
 */
import { pino, type Logger } from 'pino';
import type { Settings } from './settings.js';

export type { Logger };

/** A logger at the configured level; `to` is the destination (default stdout). */
export function createLogger(settings: Pick<Settings, 'logLevel'>, to?: NodeJS.WritableStream): Logger {
  return to ? pino({ level: settings.logLevel }, to) : pino({ level: settings.logLevel });
}

/** Commands' logger: stderr, so a command's stdout stays its answer. */
export function commandLogger(settings: Pick<Settings, 'logLevel'>): Logger {
  return pino({ level: settings.logLevel }, pino.destination(2));
}

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger (Fastify's `request.log`), made into a pino child only when a line is
 * written at an enabled level. A request that logs nothing (most of them at `warn`, and every
 * long-poll while it waits) then holds one small object instead of a pino child with its
 * bindings (docs/benchmarks.md#chat-long-poll-scale: 10,000 polls wait at once).
 */
export class LazyChildLogger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindingsOf: Record<string, unknown>,
  ) {}

  private real(): Logger {
    return (this.made ??= this.parent.child(this.bindingsOf));
  }

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  isLevelEnabled(level: string): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  bindings(): Record<string, unknown> {
    return this.made ? this.made.bindings() : { ...this.parent.bindings(), ...this.bindingsOf };
  }

  child(bindings: Record<string, unknown>, options?: Record<string, unknown>): Logger {
    return this.real().child(bindings, options);
  }

  private write(level: LevelName, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    const real = this.real();
    // Called on the logger: pino's level methods read `this`.
    (real[level] as (...a: unknown[]) => void).apply(real, args);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}
}

/**
 * Fastify's `childLoggerFactory`: a lazy child (LazyChildLogger) unless the route asks for
 * its own level or serializers, which only a real child can carry.
 */
export function lazyChildLoggerFactory(logger: Logger, bindings: Record<string, unknown>, opts: Record<string, unknown>): Logger {
  // Fastify's logger when logging is off has no levels: its child is itself.
  if (opts.level !== undefined || opts.serializers !== undefined || typeof logger.isLevelEnabled !== 'function') return logger.child(bindings, opts);
  return new LazyChildLogger(logger, bindings) as unknown as Logger;
}
