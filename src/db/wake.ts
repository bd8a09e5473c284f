/**
 * Cross-process wake-ups (DESIGN.md §4 "Waking a waiter in another process"): a waiter names a
 * channel (e.g. `signaling:<session id>`) and sleeps until somebody notifies that channel or its
 * timeout passes; the data itself is always read back from tables. On PostgreSQL a notify is a
 * `pg_notify` on one database channel per schema whose payload is the channel name (an id, never
 * data), heard by one LISTEN connection per process; on SQLite an in-process emitter (one
 * process per database file for wake-ups).
 *
 * Shape: channel name → wake every waiter of that channel. Waiters register BEFORE they read the
 * table (`listen` then read then `wait`), so a notify between the read and the wait is not lost.
 */
import pg from 'pg';
import { sql, type Kysely } from 'kysely';

export interface WakeListener {
  /** Resolves true when the channel was notified (since `listen`), false at the timeout or abort. */
  wait(timeoutMs: number, abort?: AbortSignal): Promise<boolean>;
  /** Stops listening (always call it, also after `wait`). */
  close(): void;
}

export interface Wake {
  /** Registers interest in `channel` now (before reading the table). */
  listen(channel: string): Promise<WakeListener>;
  /** Wakes the waiters of these channels in every process; call after the data has committed. */
  notify(channels: string[]): Promise<void>;
  close(): Promise<void>;
}

/** Local registry: channel → resolvers of the waiters in this process. */
class LocalWaiters {
  private readonly waiters = new Map<string, Set<() => void>>();

  add(channel: string): WakeListener {
    let fired = false;
    let resolveWait: ((v: boolean) => void) | undefined;
    const fire = () => {
      fired = true;
      resolveWait?.(true);
    };
    const set = this.waiters.get(channel) ?? new Set();
    set.add(fire);
    this.waiters.set(channel, set);
    const close = () => {
      set.delete(fire);
      if (set.size === 0 && this.waiters.get(channel) === set) this.waiters.delete(channel);
    };
    return {
      close,
      wait: (timeoutMs, abort) =>
        fired
          ? Promise.resolve(true)
          : new Promise<boolean>((resolve) => {
              const done = (v: boolean) => {
                clearTimeout(timer);
                abort?.removeEventListener('abort', onAbort);
                resolve(v);
              };
              const onAbort = () => done(false);
              const timer = setTimeout(() => done(false), timeoutMs);
              // A client that went away frees its waiter at once.
              abort?.addEventListener('abort', onAbort, { once: true });
              resolveWait = done;
            }),
    };
  }

  fire(channel: string): void {
    for (const fire of this.waiters.get(channel) ?? []) fire();
  }
}

/** SQLite: notifications stay in this process. */
export function inProcessWake(): Wake {
  const local = new LocalWaiters();
  return {
    listen: async (channel) => local.add(channel),
    notify: async (channels) => channels.forEach((c) => local.fire(c)),
    close: async () => undefined,
  };
}

/**
 * PostgreSQL: one LISTEN connection (opened on first use, reopened if it drops) per process;
 * `pg_notify` goes through the normal pool. The database channel carries the schema so test
 * suites sharing one database do not wake each other.
 */
export function postgresWake(kysely: Kysely<any>, databaseUrl: string, schema: string | undefined): Wake {
  const local = new LocalWaiters();
  const dbChannel = `parley_wake_${(schema ?? 'public').replace(/[^a-zA-Z0-9_]/g, '_')}`.slice(0, 63);
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;

  const connect = (): Promise<void> => {
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString: databaseUrl });
      c.on('notification', (msg) => {
        if (msg.channel === dbChannel && msg.payload) local.fire(msg.payload);
      });
      c.on('error', () => {
        // A dropped LISTEN connection: forget it; the next listen() reconnects. Waiters time out
        // and re-read their table, so nothing is lost, only delayed.
        if (client === c) client = undefined;
        connecting = undefined;
      });
      await c.connect();
      await c.query(`LISTEN "${dbChannel}"`);
      if (closed) {
        await c.end();
        return;
      }
      client = c;
    })().catch((e) => {
      connecting = undefined;
      throw e;
    });
    return connecting;
  };

  return {
    async listen(channel) {
      const l = local.add(channel);
      try {
        await connect();
      } catch (e) {
        l.close();
        throw e;
      }
      return l;
    },
    async notify(channels) {
      const list = [...new Set(channels)];
      if (list.length === 0) return;
      // One statement whatever the number of channels.
      await sql`select pg_notify(${dbChannel}, c) from unnest(${list}::text[]) as c`.execute(kysely);
    },
    async close() {
      closed = true;
      const c = client;
      client = undefined;
      if (c) await c.end().catch(() => undefined);
    },
  };
}
