/**
 * Cross-process wake-ups (docs/design.md#storage "Waking a waiter in another process"), one module for
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
 * A connection that stops delivering without closing (a stalled network path) is noticed by
 * its own deadline, not by TCP: `confirm` makes a round trip (`select 1`) on the LISTEN
 * connection itself; PostgreSQL sends a listening session every notification committed before
 * a statement ahead of that statement's answer (`roundTrip`), so once it is back every
 * notification committed before it was sent has been heard. Requests
 * confirm before they reuse a cached answer (read-your-writes across processes), a heartbeat
 * confirms while nobody does (HEARTBEAT_MS), and a round trip not back within CONFIRM_DEADLINE_MS
 * ends the connection as lost (`lost('stalled')`): caches stop and waiters re-read.
 *
 * No polling. Waiters listen BEFORE they read the table (`listen`, read, `wait`), so a notify
 * between the read and the wait is not lost; a listener may wait again after being woken (each
 * wait consumes the wake-ups that arrived before it).
 */
import pg from 'pg';
import { sql, type Kysely } from 'kysely';
import { Counter, counterValue, type MetricFamily } from '../domain/openmetrics.js';

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
  /** Time spent waiting by every wait that ended, in ms since start (load shedding: a wait is idle, not work). */
  readonly waitedMs: number;
  /**
   * PostgreSQL: resolves true once every notification committed (by any process) before the
   * call has been heard on the LISTEN connection; false when it does not listen, or did not
   * deliver within the deadline (it is then dropped as lost before this resolves). Calls made
   * together share one round trip. `counted`: it is counted as a statement (QueryStats);
   * the heartbeat's are not. Undefined in-process.
   */
  confirm?(counted?: boolean): Promise<boolean>;
  /** PostgreSQL: how the LISTEN connection has fared (GET /metrics). */
  readonly health?: ListenHealth;
}

export type LossReason = 'closed' | 'stalled';

/** How the LISTEN connection has fared since start, for GET /metrics. */
export class ListenHealth implements MetricFamily {
  /** Round trips that came back (requests', writers' and the heartbeat's). */
  confirmed = 0;
  /** Losses by reason: `closed` (error or end of the connection), `stalled` (a round trip not back in time). */
  readonly losses: Record<LossReason, number> = { closed: 0, stalled: 0 };

  render(): string[] {
    const losses = new Counter(
      'parley_db_listen_losses',
      'LISTEN connections lost, by reason: closed (error or end of the connection), stalled (a round trip not back within the deadline)',
    );
    for (const [reason, n] of Object.entries(this.losses)) losses.inc({ reason }, n);
    return [
      ...counterValue(
        'parley_db_listen_confirmed',
        'Round trips on the LISTEN connection that came back in time (requests, writes, heartbeat)',
        this.confirmed,
      ),
      ...losses.render(),
    ];
  }
}

/**
 * Hears the LISTEN connection besides the waiters (the read cache, pg-read-cache.ts). Called
 * synchronously from the connection's events, so `lost` happens before any later request reads.
 */
export interface WakeObserver {
  /** The connection listens (first time or again): notifications from now on are heard. */
  listening(): void;
  /** The connection is gone or stopped delivering: notifications may be missed until `listening`. */
  lost(reason: LossReason): void;
  /** A notification on this process's channel. */
  message(payload: string): void;
}

/** Delay before reopening a lost LISTEN connection that an observer needs. */
const RECONNECT_MS = 1000;
/** A LISTEN connection with no round trip back for this long is sent one (the heartbeat). */
const HEARTBEAT_MS = 1000;
/** A round trip not back within this is a connection that stopped delivering: it is dropped. */
const CONFIRM_DEADLINE_MS = 2000;
/** Opening the LISTEN connection (connect and LISTEN) may take this long before it is retried. */
const CONNECT_DEADLINE_MS = 5000;
/**
 * TCP keep-alive of the LISTEN connection: probes start after this much silence (the OS default
 * is two hours). The heartbeat is what bounds a stall; keep-alive also lets the server side free
 * a dead peer's backend.
 */
const KEEPALIVE_IDLE_MS = 10_000;

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

/**
 * One listener, and the listener handed out (WakeListener): its methods live on the class, so a
 * waiting listener holds this object, its promise's resolve and one cancel callback, nothing
 * per waiter besides (docs/benchmarks.md#chat-long-poll-scale). While waiting, `resolve` is set
 * and it is in the deadlines (and on the cancel).
 */
class Entry implements WakeListener {
  /** A wake-up arrived that no wait has consumed yet. */
  pending = false;
  open = true;
  tick = 0;
  resolve: ((woken: boolean) => void) | undefined = undefined;
  cancel: WaitCancel | undefined = undefined;
  /** When the current wait began. */
  since = 0;
  /** The LISTEN connection's generation this listener has seen (PostgreSQL; see `beforeWait`). */
  seen = 0;
  private onCancelFn: (() => void) | undefined = undefined;

  constructor(
    private readonly owner: LocalWaiters,
    /** The channel's listeners, this one among them. */
    private readonly set: Set<Entry>,
    private readonly channel: string,
  ) {}

  /** Made on the first wait that has a cancel (a listener removes exactly what it added). */
  private get onCancel(): () => void {
    return (this.onCancelFn ??= () => this.settle(false));
  }

  wait(timeoutMs: number, cancel?: WaitCancel): Promise<boolean> {
    const before = this.owner.beforeWait;
    // Not an async function: a waiting listener is one promise, not one adopted by another.
    if (!before) return this.waitNow(timeoutMs, cancel);
    return before(this).then((replaced) => {
      if (replaced) this.pending = true;
      return this.waitNow(timeoutMs, cancel);
    });
  }

  private waitNow(timeoutMs: number, cancel: WaitCancel | undefined): Promise<boolean> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve(true);
    }
    if (!this.open || this.owner.closed || isCancelled(cancel) || timeoutMs <= 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      this.resolve = resolve;
      this.since = performance.now();
      this.owner.deadlines.add(this, timeoutMs);
      // A client that went away frees its waiter at once.
      if (cancel) {
        this.cancel = cancel;
        if ('aborted' in cancel) cancel.addEventListener('abort', this.onCancel, { once: true });
        else cancel.on('close', this.onCancel);
      }
    });
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    this.owner.removed(this.channel, this.set, this);
    this.settle(false);
  }

  /** Ends the current wait (no-op when not waiting). */
  settle(woken: boolean): void {
    const resolve = this.resolve;
    if (!resolve) return;
    this.resolve = undefined;
    this.owner.waited.ms += performance.now() - this.since;
    this.owner.deadlines.remove(this);
    const c = this.cancel;
    this.cancel = undefined;
    if (c && this.onCancelFn) {
      if ('aborted' in c) c.removeEventListener('abort', this.onCancelFn);
      else c.removeListener('close', this.onCancelFn);
    }
    resolve(woken);
  }
}

/** Channel → this process's listeners. */
class LocalWaiters {
  private readonly byChannel = new Map<string, Set<Entry>>();
  readonly deadlines = new Deadlines();
  private count = 0;
  /** Time spent in waits that ended (ms). */
  readonly waited = { ms: 0 };
  closed = false;

  /** Runs before each wait; true: treat it as woken (re-read). One function for every listener. */
  constructor(readonly beforeWait?: (entry: Entry) => Promise<boolean>) {}

  get size(): number {
    return this.count;
  }

  add(channel: string, seen = 0): WakeListener {
    let set = this.byChannel.get(channel);
    if (!set) this.byChannel.set(channel, (set = new Set<Entry>()));
    const entry = new Entry(this, set, channel);
    entry.seen = seen;
    set.add(entry);
    this.count++;
    return entry;
  }

  /** A listener closed. */
  removed(channel: string, set: Set<Entry>, entry: Entry): void {
    this.count--;
    set.delete(entry);
    if (set.size === 0 && this.byChannel.get(channel) === set) this.byChannel.delete(channel);
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
    get waitedMs() {
      return local.waited.ms;
    },
  };
}

/** The database channel of a schema's wake-ups (also named by the read cache's notify triggers). */
export function wakeChannel(schema: string | undefined): string {
  return `parley_wake_${(schema ?? 'public').replace(/[^a-zA-Z0-9_]/g, '_')}`.slice(0, 63);
}

/** The sync round trip on the LISTEN connection (`confirm`): no notify, no transaction id. */
const ROUND_TRIP = 'select 1';

/** What `postgresWake` reports besides notifications. */
export interface PostgresWakeOptions {
  /** Hears every notification and the connection's state; with one the connection is kept open. */
  observer?: WakeObserver;
  /** A counted round trip (statement `sql`) took `ms` (the database layer counts it as a statement). */
  counted?: (ms: number, sql: string) => void;
  /** Told when the connection is lost, and why (the log). */
  warn?: (message: string) => void;
}

/**
 * PostgreSQL: one LISTEN connection (opened on first use, reopened after it drops) per process;
 * `pg_notify` goes through the pool or the caller's transaction.
 */
export function postgresWake(kysely: Kysely<any>, databaseUrl: string, schema: string | undefined, options: PostgresWakeOptions = {}): Wake {
  const { observer } = options;
  // Before each wait: make sure somebody listens; a new connection means "re-read".
  const local = new LocalWaiters(async (entry) => {
    if (local.closed) return false;
    await connect().catch(() => undefined);
    const replaced = generation !== entry.seen;
    entry.seen = generation;
    return replaced;
  });
  const dbChannel = wakeChannel(schema);
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  /** Bumped whenever a new LISTEN connection is in place: listeners older than it re-read once. */
  let generation = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  const health = new ListenHealth();
  /** Round trips under way → their settle (false: the connection was lost). */
  const pending = new Set<(answered: boolean) => void>();
  /** Callers of `confirm` waiting for the next round trip (it is sent after all of them called). */
  let batch: Array<{ resolve: (heard: boolean) => void; counted: boolean }> = [];
  /** Round trips sent and not back yet. */
  let inFlight = 0;
  let scheduled = false;
  /** When a round trip last came back (or the connection started listening). */
  let lastDelivery = performance.now();

  /** With an observer, the connection is kept open: retry after a loss or a failed attempt. */
  const reconnectLater = () => {
    if (!observer || local.closed || reconnectTimer) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connect().catch(reconnectLater);
    }, RECONNECT_MS);
    reconnectTimer.unref();
  };

  /** Forgets connection `c` (the next listen or wait reconnects) and tells everybody. */
  const drop = (c: pg.Client, reason: LossReason) => {
    if (client !== c) return;
    client = undefined;
    health.losses[reason]++;
    options.warn?.(
      reason === 'stalled'
        ? `LISTEN connection delivered nothing for ${CONFIRM_DEADLINE_MS} ms: dropped; caches off until it listens again`
        : 'LISTEN connection lost; caches off until it listens again',
    );
    // Wake everybody to re-read: a notify sent while nobody listened is then not lost, only read late.
    local.fireAll();
    observer?.lost(reason);
    for (const settle of pending) settle(false);
    pending.clear();
    reconnectLater();
  };

  const connect = (): Promise<void> => {
    if (client) return Promise.resolve();
    connecting ??= (async () => {
      const c = new pg.Client({
        connectionString: databaseUrl,
        // Named after its channel: an operator (or a test) can tell it apart in pg_stat_activity.
        application_name: dbChannel,
        // The round trips of successive batches go out without waiting for the earlier ones.
        pipeline: true,
        keepAlive: true,
        keepAliveInitialDelayMillis: KEEPALIVE_IDLE_MS,
        connectionTimeoutMillis: CONNECT_DEADLINE_MS,
      });
      c.on('notification', (msg) => {
        if (msg.channel !== dbChannel || !msg.payload) return;
        local.fire(msg.payload);
        observer?.message(msg.payload);
      });
      const lost = () => drop(c, 'closed');
      c.on('error', lost);
      c.on('end', lost);
      let deadline: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          (async () => {
            await c.connect();
            await c.query(`LISTEN "${dbChannel}"`);
          })(),
          new Promise((_, reject) => {
            deadline = setTimeout(() => reject(new Error('LISTEN connection not ready in time')), CONNECT_DEADLINE_MS);
          }),
        ]);
      } catch (e) {
        destroy(c);
        throw e;
      } finally {
        clearTimeout(deadline);
      }
      if (local.closed) {
        await c.end().catch(() => undefined);
        return;
      }
      client = c;
      generation++;
      lastDelivery = performance.now();
      observer?.listening();
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };
  if (observer) connect().catch(reconnectLater);

  /**
   * One round trip on the LISTEN connection itself, back within the deadline or the connection
   * is dropped as stalled. A committing transaction signals every listening backend before its
   * client gets the answer, and a backend sends the notifications it was signaled for before the
   * ReadyForQuery of its next statement (PostgreSQL's postgres.c, "Process incoming notifies ...
   * before ReadyForQuery"): so once `select 1` is answered here, every notification committed
   * before it was sent has been handled (the pg client emits them in the order they arrive).
   * No notify, no transaction id: it does not queue behind other commits.
   */
  const roundTrip = async (counted: boolean): Promise<boolean> => {
    const c = client;
    if (c === undefined) return false;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    let settle: (answered: boolean) => void = () => undefined;
    const answered = new Promise<boolean>((resolve) => {
      settle = resolve;
      pending.add(resolve);
      timer = setTimeout(() => resolve(false), CONFIRM_DEADLINE_MS);
      // A failure also shows as the connection's error (dropped as closed).
      c.query(ROUND_TRIP).then(
        () => resolve(true),
        () => resolve(false),
      );
    });
    const ok = await answered;
    clearTimeout(timer);
    pending.delete(settle);
    if (!ok) {
      if (client === c) {
        drop(c, 'stalled');
        destroy(c);
      }
      return false;
    }
    lastDelivery = performance.now();
    health.confirmed++;
    if (counted) options.counted?.(lastDelivery - started, ROUND_TRIP);
    return client === c;
  };

  const sendBatch = async (): Promise<void> => {
    scheduled = false;
    const waiting = batch;
    batch = [];
    if (waiting.length === 0) return;
    inFlight++;
    let ok = false;
    try {
      ok = await roundTrip(waiting.some((w) => w.counted));
    } finally {
      inFlight--;
      for (const w of waiting) w.resolve(ok);
    }
  };
  // In the check phase: every caller whose request was read in this poll phase shares it. The
  // connection pipelines, so a batch does not wait for the round trips of earlier ones.
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void sendBatch());
  };

  const confirm = (counted = true): Promise<boolean> => {
    if (client === undefined || local.closed) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      batch.push({ resolve, counted });
      schedule();
    });
  };

  // The heartbeat: a connection nobody confirmed through lately is confirmed now.
  const heartbeat = setInterval(() => {
    if (client !== undefined && inFlight === 0 && !scheduled && performance.now() - lastDelivery >= HEARTBEAT_MS) void confirm(false);
  }, HEARTBEAT_MS);
  heartbeat.unref();

  return {
    channel: dbChannel,
    health,
    confirm,
    async listen(channel) {
      await connect();
      return local.add(channel, generation);
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
      clearInterval(heartbeat);
      observer?.lost('closed');
      for (const settle of pending) settle(false);
      pending.clear();
      const c = client;
      client = undefined;
      if (c) await c.end().catch(() => undefined);
    },
    get waiting() {
      return local.size;
    },
    get waitedMs() {
      return local.waited.ms;
    },
  };
}

/**
 * Ends a client whatever state its socket is in: `end()` waits for the server's goodbye, which
 * a stalled path never delivers.
 */
function destroy(c: pg.Client): void {
  (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  c.end().catch(() => undefined);
}
