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

/**
 * What ends a wait early besides a wake-up and the timeout: an AbortSignal, or the client's
 * connection itself (a socket: its `close` event, `destroyed` once gone). Long-polls pass the
 * socket, so a waiting poll holds one listener instead of an AbortController, its signal and
 * their listener objects (docs/benchmarks.md "Chat long-poll scale").
 */
export type WaitCancel =
  AbortSignal | { readonly destroyed: boolean; on(event: 'close', fn: () => void): unknown; removeListener(event: 'close', fn: () => void): unknown };

export interface WakeListener {
  /**
   * Resolves true when the channel was notified since `listen` or the previous wait (or the
   * LISTEN connection was replaced: re-read), false at the timeout, cancel or shutdown.
   */
  wait(timeoutMs: number, cancel?: WaitCancel): Promise<boolean>;
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
  /**
   * PostgreSQL: the database channel `notify` sends on (the payload is the channel's name), for
   * a statement that notifies within itself (a chat post, ChatMessagesRepository.postAlone).
   * Undefined in-process.
   */
  readonly channel?: string;
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

/** True when the wait's cancel has already fired (the signal aborted, the connection closed). */
export const isCancelled = (c: WaitCancel | undefined): boolean => c !== undefined && ('aborted' in c ? c.aborted : c.destroyed);

/**
 * Timeouts of every waiting listener on one timer: deadlines are rounded up to the next tick
 * (a wait may end up to TICK_MS late, never early) and one interval runs while any is pending,
 * instead of a timer object and closure per waiter.
 */
const TICK_MS = 100;

class Deadlines {
  private readonly byTick = new Map<number, Set<Entry>>();
  private timer: NodeJS.Timeout | undefined;
  private doneTick = 0;

  add(entry: Entry, timeoutMs: number): void {
    const now = performance.now();
    const tick = Math.ceil((now + timeoutMs) / TICK_MS);
    entry.tick = tick;
    let set = this.byTick.get(tick);
    if (!set) this.byTick.set(tick, (set = new Set()));
    set.add(entry);
    if (!this.timer) {
      this.doneTick = Math.floor(now / TICK_MS);
      this.timer = setInterval(() => this.expire(), TICK_MS);
    }
  }

  remove(entry: Entry): void {
    const set = this.byTick.get(entry.tick);
    if (set?.delete(entry) && set.size === 0) this.byTick.delete(entry.tick);
    if (this.byTick.size === 0) this.stop();
  }

  private expire(): void {
    const now = Math.floor(performance.now() / TICK_MS);
    for (let tick = this.doneTick + 1; tick <= now; tick++) {
      const set = this.byTick.get(tick);
      if (!set) continue;
      this.byTick.delete(tick);
      for (const entry of set) entry.settle(false);
    }
    this.doneTick = now;
    if (this.byTick.size === 0) this.stop();
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** One listener; while waiting, `resolve` is set and it is in the deadlines (and on the cancel). */
class Entry {
  /** A wake-up arrived that no wait has consumed yet. */
  pending = false;
  tick = 0;
  resolve: ((woken: boolean) => void) | undefined = undefined;
  cancel: WaitCancel | undefined = undefined;
  readonly onCancel = (): void => this.settle(false);

  constructor(private readonly deadlines: Deadlines) {}

  /** Ends the current wait (no-op when not waiting). */
  settle(woken: boolean): void {
    const resolve = this.resolve;
    if (!resolve) return;
    this.resolve = undefined;
    this.deadlines.remove(this);
    const c = this.cancel;
    this.cancel = undefined;
    if (c) {
      if ('aborted' in c) c.removeEventListener('abort', this.onCancel);
      else c.removeListener('close', this.onCancel);
    }
    resolve(woken);
  }
}

/** Channel → this process's listeners. */
class LocalWaiters {
  private readonly byChannel = new Map<string, Set<Entry>>();
  private readonly deadlines = new Deadlines();
  private count = 0;
  closed = false;

  get size(): number {
    return this.count;
  }

  add(channel: string, beforeWait: () => Promise<boolean> = async () => false): WakeListener {
    const entry = new Entry(this.deadlines);
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
        entry.settle(false);
      },
      wait: async (timeoutMs, cancel) => {
        if (await beforeWait()) entry.pending = true;
        if (entry.pending) {
          entry.pending = false;
          return true;
        }
        if (!open || this.closed || isCancelled(cancel) || timeoutMs <= 0) return false;
        return new Promise<boolean>((resolve) => {
          entry.resolve = resolve;
          this.deadlines.add(entry, timeoutMs);
          // A client that went away frees its waiter at once.
          if (cancel) {
            entry.cancel = cancel;
            if ('aborted' in cancel) cancel.addEventListener('abort', entry.onCancel, { once: true });
            else cancel.on('close', entry.onCancel);
          }
        });
      },
    };
  }

  fire(channel: string): void {
    for (const entry of this.byChannel.get(channel) ?? []) {
      if (entry.resolve) entry.settle(true);
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
    for (const set of this.byChannel.values()) for (const entry of set) entry.settle(false);
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

/** The database channel of a schema's wake-ups (also named by the read cache's notify triggers). */
export function wakeChannel(schema: string | undefined): string {
  return `parley_wake_${(schema ?? 'public').replace(/[^a-zA-Z0-9_]/g, '_')}`.slice(0, 63);
}

/**
 * PostgreSQL: one LISTEN connection (opened on first use, reopened after it drops) per process;
 * `pg_notify` goes through the pool or the caller's transaction.
 */
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
    channel: dbChannel,
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
