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
