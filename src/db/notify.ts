/**
 * Cross-process wake-ups (DESIGN.md §4): "something changed under (channel, key), go and read
 * the tables". Used by the chat long-poll (channel `chat`, key = room id) and meant for internal
 * signaling too. A wake-up carries ids only; waiters read the data back from the database.
 *
 * - PostgreSQL: `pg_notify` on one channel per database schema, and one dedicated LISTEN
 *   connection per process, opened when the first waiter subscribes. A notify sent through a
 *   transaction is delivered when it commits and never when it rolls back.
 * - SQLite: an in-process emitter (one process owns the file's writers in this mode). A notify
 *   sent inside a transaction fires at once; the woken reader's query waits for the single
 *   connection, i.e. for the commit, and a rolled-back change is simply not found.
 *
 * No polling: a waiter sleeps until a wake-up, its timeout, its abort signal or `close()`.
 * Waiters must subscribe BEFORE reading the state they wait on (then nothing slips between).
 */
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import type { Db } from './database.js';

/** A subscription taken before the caller reads; `wait` sleeps until a wake-up arrives. */
export interface Waiter {
  /**
   * Resolves true when woken (also by a wake-up that arrived since subscribing), false on
   * timeout, abort or shutdown.
   */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  /** Ends the subscription (always call it, in a finally). */
  cancel(): void;
}

export class Wakeups {
  private readonly local = new EventEmitter();
  private listener?: pg.Client;
  private connecting?: Promise<void>;
  private closed = false;
  /** Waiters currently subscribed, for shutdown. */
  private readonly live = new Set<() => void>();
  private readonly pgChannel: string;

  constructor(
    private readonly db: Db,
    private readonly databaseUrl?: string,
  ) {
    // Thousands of long-polls share one emitter key space.
    this.local.setMaxListeners(0);
    // One channel per schema: test suites (and tenants) sharing a database do not wake each other.
    this.pgChannel = `parley_wake_${(db.schema ?? 'public').replace(/[^a-zA-Z0-9_]/g, '_')}`.slice(0, 63);
  }

  /**
   * Announces a change under (channel, key). Pass the transaction that makes the change as
   * `via` so that PostgreSQL delivers it at commit.
   */
  async notify(channel: string, key: string | number, via?: Kysely<any>): Promise<void> {
    const payload = `${channel}:${key}`;
    if (this.db.dialect === 'postgres') {
      await sql`select pg_notify(${this.pgChannel}, ${payload})`.execute(via ?? this.db.kysely);
      return;
    }
    // After the current statement's microtasks, so a caller's transaction code runs on first.
    setImmediate(() => this.local.emit(payload));
  }

  /** Announces changes under several keys of one channel (one statement on PostgreSQL). */
  async notifyMany(channel: string, keys: Array<string | number>, via?: Kysely<any>): Promise<void> {
    if (keys.length === 0) return;
    const payloads = [...new Set(keys.map((k) => `${channel}:${k}`))];
    if (this.db.dialect === 'postgres') {
      await sql`select pg_notify(${this.pgChannel}, p) from unnest(${payloads}::text[]) as p`.execute(via ?? this.db.kysely);
      return;
    }
    setImmediate(() => payloads.forEach((p) => this.local.emit(p)));
  }

  /** Subscribes to (channel, key); on PostgreSQL resolves once the LISTEN is in place. */
  async subscribe(channel: string, key: string | number): Promise<Waiter> {
    if (this.closed) return { wait: async () => false, cancel: () => undefined };
    if (this.db.dialect === 'postgres') await this.ensureListening();
    const payload = `${channel}:${key}`;
    let woken = false;
    let release: ((v: boolean) => void) | undefined;
    const onWake = () => {
      woken = true;
      release?.(true);
    };
    const onClose = () => release?.(false);
    this.local.on(payload, onWake);
    this.live.add(onClose);
    const cancel = () => {
      this.local.off(payload, onWake);
      this.live.delete(onClose);
    };
    return {
      cancel,
      wait: (timeoutMs, signal) => {
        if (woken) return Promise.resolve(true);
        if (this.closed || signal?.aborted || timeoutMs <= 0) return Promise.resolve(false);
        return new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => done(false), timeoutMs);
          const onAbort = () => done(false);
          const done = (v: boolean) => {
            clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            release = undefined;
            resolve(v);
          };
          release = done;
          signal?.addEventListener('abort', onAbort, { once: true });
        });
      },
    };
  }

  /** Releases every waiter (they answer as timed out) and closes the LISTEN connection. */
  async close(): Promise<void> {
    this.closed = true;
    for (const release of [...this.live]) release();
    this.live.clear();
    const client = this.listener;
    this.listener = undefined;
    if (client) await client.end().catch(() => undefined);
  }

  /** Number of subscribed waiters (metrics, tests). */
  get waiting(): number {
    return this.live.size;
  }

  private ensureListening(): Promise<void> {
    if (this.listener) return Promise.resolve();
    if (!this.connecting) {
      this.connecting = this.connect().finally(() => (this.connecting = undefined));
    }
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    await client.connect();
    client.on('notification', (msg) => {
      if (msg.channel === this.pgChannel && msg.payload) this.local.emit(msg.payload);
    });
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      // Wake everybody: they re-read the tables and subscribe again (which reconnects).
      for (const payload of this.local.eventNames()) this.local.emit(payload);
    };
    client.on('error', lost);
    client.on('end', lost);
    await client.query(`LISTEN "${this.pgChannel}"`);
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listener = client;
  }
}
