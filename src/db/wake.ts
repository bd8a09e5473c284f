/**
 * Cross-process wake-ups (DESIGN.md §4 "Waking a waiter in another process"), one module for
 * every waiter: the chat long-poll (channel `chat:<room id>`) and internal signaling
 * (`signaling:<session id>`). A waiter names a channel and sleeps until somebody notifies it,
 * its timeout passes, its abort signal fires or the process shuts down; the data itself is
 * always read back from the tables (a wake-up carries a channel name, never data).
 *
 * - PostgreSQL: `pg_notify` on one database channel per schema (test suites and tenants sharing
 *   a database do not wake each other) whose payload is the channel name, heard by ONE dedicated
 *   LISTEN connection per process, opened by the first waiter. A notify sent through a
 *   transaction (`via`) is delivered when it commits and never when it rolls back.
 * - SQLite: an in-process emitter (one process owns the file's wake-ups). A notify fires after
 *   the current microtasks; the woken reader's query waits for the single connection, i.e. for
 *   the caller's commit.
 *
 * The same LISTEN connection carries the read cache's invalidations (pg-read-cache.ts): an
 * observer given to `postgresWake` hears every notification and the connection's state, and
 * with one the connection is opened at start and reopened after a loss (RECONNECT_MS) even
 * when nobody waits.
 *
 * No polling. Waiters listen BEFORE they read the table (`listen`, read, `wait`), so a notify
 * between the read and the wait is not lost; a listener may wait again after being woken (each
 * wait consumes the wake-ups that arrived before it).
 */
import pg from 'pg';
import { sql, type Kysely } from 'kysely';

export interface WakeListener {
  /**
   * Resolves true when the channel was notified since `listen` or the previous wait (or the
   * LISTEN connection was replaced: re-read), false at the timeout, abort or shutdown.
   */
  wait(timeoutMs: number, abort?: AbortSignal): Promise<boolean>;
  /** Stops listening (always call it, in a finally). */
  close(): void;
}

export interface Wake {
  /** Registers interest in `channel` now (before reading the table). */
  listen(channel: string): Promise<WakeListener>;
  /**
   * Wakes the waiters of these channels in every process. With `via` (the transaction making
   * the change) PostgreSQL delivers at commit; without it, call after the data has committed.
   */
  notify(channels: string[], via?: Kysely<any>): Promise<void>;
  /** Releases every waiter (they answer false) and closes the LISTEN connection. */
  close(): Promise<void>;
  /** Listeners currently registered in this process (metrics, benchmarks, tests). */
  readonly waiting: number;
}

/**
 * Hears the LISTEN connection besides the waiters (the read cache, pg-read-cache.ts). Called
 * synchronously from the connection's events, so `lost` happens before any later request reads.
 */
export interface WakeObserver {
  /** The connection listens (first time or again): notifications from now on are heard. */
  listening(): void;
  /** The connection is gone: notifications may be missed until `listening`. */
  lost(): void;
  /** A notification on this process's channel. */
  message(payload: string): void;
}

/** Delay before reopening a lost LISTEN connection that an observer needs. */
const RECONNECT_MS = 1000;

interface Entry {
  /** A wake-up arrived that no wait has consumed yet. */
  pending: boolean;
  resolve?: (woken: boolean) => void;
}

/** Channel → this process's listeners. */
class LocalWaiters {
  private readonly byChannel = new Map<string, Set<Entry>>();
  private count = 0;
  closed = false;

  get size(): number {
    return this.count;
  }

  add(channel: string, beforeWait: () => Promise<boolean> = async () => false): WakeListener {
    const entry: Entry = { pending: false };
    const set = this.byChannel.get(channel) ?? new Set<Entry>();
    set.add(entry);
    this.byChannel.set(channel, set);
    this.count++;
    let open = true;
    return {
      close: () => {
        if (!open) return;
        open = false;
        this.count--;
        set.delete(entry);
        if (set.size === 0 && this.byChannel.get(channel) === set) this.byChannel.delete(channel);
        entry.resolve?.(false);
      },
      wait: async (timeoutMs, abort) => {
        if (await beforeWait()) entry.pending = true;
        if (entry.pending) {
          entry.pending = false;
          return true;
        }
        if (!open || this.closed || abort?.aborted || timeoutMs <= 0) return false;
        return new Promise<boolean>((resolve) => {
          const done = (v: boolean) => {
            clearTimeout(timer);
            abort?.removeEventListener('abort', onAbort);
            entry.resolve = undefined;
            resolve(v);
          };
          const onAbort = () => done(false);
          const timer = setTimeout(() => done(false), timeoutMs);
          // A client that went away frees its waiter at once.
          abort?.addEventListener('abort', onAbort, { once: true });
          entry.resolve = done;
        });
      },
    };
  }

  fire(channel: string): void {
    for (const entry of this.byChannel.get(channel) ?? []) {
      if (entry.resolve) entry.resolve(true);
      else entry.pending = true;
    }
  }

  /** Wakes everybody (they re-read): the LISTEN connection was lost. */
  fireAll(): void {
    for (const channel of this.byChannel.keys()) this.fire(channel);
  }

  /** Shutdown: every waiting listener answers false. */
  releaseAll(): void {
    this.closed = true;
    for (const set of this.byChannel.values()) for (const entry of set) entry.resolve?.(false);
  }
}

/** SQLite: notifications stay in this process. */
export function inProcessWake(): Wake {
  const local = new LocalWaiters();
  return {
    listen: async (channel) => local.add(channel),
    async notify(channels) {
      const list = [...new Set(channels)];
      // After the current microtasks, so a caller's transaction code runs on first.
      if (list.length) setImmediate(() => list.forEach((c) => local.fire(c)));
    },
    close: async () => local.releaseAll(),
    get waiting() {
      return local.size;
    },
  };
}

/**
 * PostgreSQL: one LISTEN connection (opened on first use, reopened after it drops) per process;
 * `pg_notify` goes through the pool or the caller's transaction.
 */
/** The database channel of a schema's wake-ups (also named by the read cache's notify triggers). */
export function wakeChannel(schema: string | undefined): string {
  return `parley_wake_${(schema ?? 'public').replace(/[^a-zA-Z0-9_]/g, '_')}`.slice(0, 63);
}

export function postgresWake(kysely: Kysely<any>, databaseUrl: string, schema: string | undefined, observer?: WakeObserver): Wake {
  const local = new LocalWaiters();
  const dbChannel = wakeChannel(schema);
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  /** Bumped whenever a new LISTEN connection is in place: listeners older than it re-read once. */
  let generation = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;

  /** With an observer, the connection is kept open: retry after a loss or a failed attempt. */
  const reconnectLater = () => {
    if (!observer || local.closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connect().catch(reconnectLater);
    }, RECONNECT_MS);
    reconnectTimer.unref();
  };

  const connect = (): Promise<void> => {
    if (client) return Promise.resolve();
    connecting ??= (async () => {
      // keepAlive: a connection that died silently (no FIN) is noticed, and with it the loss.
      const c = new pg.Client({ connectionString: databaseUrl, keepAlive: true });
      c.on('notification', (msg) => {
        if (msg.channel !== dbChannel || !msg.payload) return;
        local.fire(msg.payload);
        observer?.message(msg.payload);
      });
      const lost = () => {
        if (client !== c) return;
        // Forget it (the next listen or wait reconnects) and wake everybody to re-read: a
        // notify sent while nobody listened is then not lost, only read late.
        client = undefined;
        local.fireAll();
        observer?.lost();
        reconnectLater();
      };
      c.on('error', lost);
      c.on('end', lost);
      try {
        await c.connect();
        await c.query(`LISTEN "${dbChannel}"`);
      } catch (e) {
        await c.end().catch(() => undefined);
        throw e;
      }
      if (local.closed) {
        await c.end().catch(() => undefined);
        return;
      }
      client = c;
      generation++;
      observer?.listening();
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };
  if (observer) connect().catch(reconnectLater);

  return {
    async listen(channel) {
      await connect();
      let seen = generation;
      // Before each wait: make sure somebody listens; a new connection means "re-read".
      const beforeWait = async () => {
        if (local.closed) return false;
        await connect().catch(() => undefined);
        const replaced = generation !== seen;
        seen = generation;
        return replaced;
      };
      return local.add(channel, beforeWait);
    },
    async notify(channels, via) {
      const list = [...new Set(channels)];
      if (list.length === 0) return;
      // One statement whatever the number of channels.
      await sql`select pg_notify(${dbChannel}, c) from unnest(${list}::text[]) as c`.execute(via ?? kysely);
    },
    async close() {
      local.releaseAll();
      clearTimeout(reconnectTimer);
      observer?.lost();
      const c = client;
      client = undefined;
      if (c) await c.end().catch(() => undefined);
    },
    get waiting() {
      return local.size;
    },
  };
}
