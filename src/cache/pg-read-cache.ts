/**
 * The PostgreSQL side of the per-process read cache (docs/design.md#storage: in-memory caches are safe to
 * lose and invalidated across processes). SQLite caches the reads every request makes
 * (credential check, config generation, preferences) under its change stamp (direct-reads.ts);
 * here the same reads (`compiledRead` with a `table`) are cached per process and invalidated
 * by LISTEN/NOTIFY:
 *
 * - Every write to a cached table, by any process or tool, notifies: a row trigger
 *   (migration 0707) calls `pg_notify` on the schema's wake channel with
 *   `cache:<table>:<key>`, in the writing transaction, so it is delivered at commit and never
 *   for a rollback. The wake module's one LISTEN connection per process hears it
 *   (`WakeObserver`) and the entries of that key are dropped, in every process.
 * - Read-your-writes across processes: before a request reuses anything cached, the process
 *   confirms that it has heard every commit made before the request arrived (`afterSync`: a
 *   round trip on the LISTEN connection, shared by the requests that arrived together, wake.ts
 *   `confirm`): a listening backend sends the notifications of every commit answered before the
 *   round trip ahead of its answer, so by then the commits' own notifications have been applied: a client whose write
 *   another process answered a moment ago sees it here too, with no window.
 * - The writing process applies its own writes before going on: statements sent through its
 *   pool that write a cached table are spotted by their text (`trackWrites`), and when they
 *   have committed (after the statement, or at `commit`) a round trip is confirmed the same way,
 *   so the rest of the request that wrote sees its write. Should it not come back in time
 *   the LISTEN connection is dropped as stalled and everything cached with it.
 * - While the LISTEN connection is not listening (not yet connected, lost, stalled,
 *   reconnecting), every read goes to the database and nothing is stored: a notification
 *   missed then cannot leave a stale entry. Each (re)connection and each loss clears everything.
 * - A read stores its result only when no invalidation of its key or of its whole table (and no
 *   loss or reconnect) happened while it ran, so a result read just before a commit cannot
 *   outlive the commit's notification.
 *
 * The same connection carries the change feed's `feed:<topic>` notifications (migration 0712,
 * change-feed.ts `PgChangeFeed`): writes to the tables it covers are spotted and synced the
 * same way, and every loss or reconnection starts the feed over.
 *
 * Cached reads take exactly one parameter, the key the trigger sends (users.id,
 * user_preferences.user_id, user_status.user_id, app_passwords.token_hash, cache_state.id).
 */
import type pg from 'pg';
import { BoundedMap } from '../domain/bounded-map.js';
import { PgChangeFeed } from './change-feed.js';
import { BRUTE_FORCE_FED_TABLES, CACHED_TABLES, FED_TABLES, type CachedTable } from './topics.js';
import type { WakeObserver } from './wake.js';

/** Prefix of the cache's payloads on the wake channel (wake channels never start with it). */
const CACHE_PAYLOAD_PREFIX = 'cache:';
/** Prefix of the change feed's payloads (`feed:<topic>`, migration 0712). */
const FEED_PAYLOAD_PREFIX = 'feed:';
/** Tables whose writes notify the change feed: a write to one is synced like a cached table's, so that this process's next read sees its topics changed. */
const FED: ReadonlySet<string> = new Set([...FED_TABLES, ...BRUTE_FORCE_FED_TABLES]);

/** Keys kept per table (oldest forgotten first). */
const MAX_KEYS = 10_000;

/** `insert into "t"`, `update "t"`, `delete from "t"`, `truncate "t"` anywhere in a statement (CTEs too). */
const WRITE = /\b(?:insert\s+into|update|delete\s+from|truncate(?:\s+table)?)\s+(?:"?\w+"?\.)?"?(\w+)"?/gi;
const BEGIN = /^\s*(?:begin|start\s+transaction)\b/i;
const END = /^\s*(?:commit|rollback)\s*;?\s*$/i;

const cachedTables: ReadonlySet<string> = new Set(CACHED_TABLES);

/** The cached and fed tables a statement writes (empty for a read). */
function writtenTables(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WRITE)) if ((cachedTables.has(m[1]) || FED.has(m[1])) && !out.includes(m[1])) out.push(m[1]);
  return out;
}

interface TableCache {
  /** Bumped by every invalidation of the whole table: a read that ran across one does not store. */
  epoch: number;
  /** Key (the read's parameter) → read id → rows. */
  keys: BoundedMap<string, Map<number, object[]>>;
  /**
   * Reads under way, by key: an invalidation of their key marks them stale, and a stale read
   * does not store. Only the key's own reads: a write to one user's row does not keep every
   * other user's read, running at the same moment, from being stored.
   */
  running: Map<string, Set<{ stale: boolean }>>;
}

interface ClientState {
  inTransaction: boolean;
  /** Cached tables written by the open transaction. */
  written: Set<string>;
}

type PoolLike = Pick<pg.Pool, 'connect' | 'end'>;

export class PgReadCache {
  /** The LISTEN connection listens. */
  private connected = false;
  /** The notify triggers are in place (after migrations, `enable`). */
  private enabled = false;
  /** Bumped by every loss, reconnection and full clear. */
  private epoch = 0;
  private readonly tables = new Map<string, TableCache>();
  private readonly tracked = new WeakSet<object>();
  private nextReadId = 0;
  /** The change feed as this process hears it (rendered answers are kept on its word). */
  readonly feed = new PgChangeFeed(() => this.active);

  /**
   * @param confirm resolves true once every notification committed before the call has been
   *   heard, false when the LISTEN connection does not listen or was dropped (wake.ts `confirm`)
   */
  constructor(private readonly confirm: () => Promise<boolean>) {}

  /** True while cached reads may be used: enabled and the LISTEN connection listens. */
  get active(): boolean {
    return this.connected && this.enabled;
  }

  /**
   * Starts caching, once the migrations (and with them the notify triggers) are in place: before
   * that, a write would not notify.
   */
  enable(): void {
    this.clear();
    this.enabled = true;
  }

  /** The wake module's LISTEN connection reports here (one connection per process). */
  readonly observer: WakeObserver = {
    listening: () => {
      this.clear();
      this.connected = true;
    },
    lost: () => {
      this.connected = false;
      this.clear();
    },
    message: (payload) => {
      if (payload.startsWith(FEED_PAYLOAD_PREFIX)) {
        this.feed.heard(payload.slice(FEED_PAYLOAD_PREFIX.length));
        return;
      }
      if (!payload.startsWith(CACHE_PAYLOAD_PREFIX)) return;
      const rest = payload.slice(CACHE_PAYLOAD_PREFIX.length);
      const colon = rest.indexOf(':');
      if (colon < 0) return;
      const key = rest.slice(colon + 1);
      this.invalidate(rest.slice(0, colon), key === '*' ? undefined : key);
    },
  };

  /** A new cached read on `table`; returns the function that runs it through the cache. */
  reader<R extends object>(table: CachedTable, run: (parameters: readonly unknown[]) => Promise<R[]>): (parameters: readonly unknown[]) => Promise<R[]> {
    const id = this.nextReadId++;
    return async (parameters) => {
      if (!this.active) return run(parameters);
      const cache = this.table(table);
      const key = String(parameters[0]);
      const hit = cache.keys.get(key)?.get(id);
      if (hit !== undefined) return hit.map((r) => ({ ...r })) as R[];
      const epoch = this.epoch;
      const tableEpoch = cache.epoch;
      const flight = { stale: false };
      let flights = cache.running.get(key);
      if (flights === undefined) cache.running.set(key, (flights = new Set()));
      flights.add(flight);
      let rows: R[];
      try {
        rows = await run(parameters);
      } finally {
        flights.delete(flight);
        if (flights.size === 0 && cache.running.get(key) === flights) cache.running.delete(key);
      }
      if (this.active && epoch === this.epoch && tableEpoch === cache.epoch && !flight.stale) {
        let byRead = cache.keys.get(key);
        if (byRead === undefined) cache.keys.set(key, (byRead = new Map()));
        byRead.set(
          id,
          rows.map((r) => ({ ...r })),
        );
      }
      return rows;
    };
  }

  /** Drops one key of a table (every read of it), or the whole table. */
  private invalidate(table: string, key?: string): void {
    const cache = this.tables.get(table);
    if (cache === undefined) return;
    if (key === undefined) {
      cache.epoch++;
      cache.keys.clear();
      return;
    }
    cache.keys.delete(key);
    for (const flight of cache.running.get(key) ?? []) flight.stale = true;
  }

  private clear(): void {
    this.epoch++;
    this.feed.startOver();
    for (const cache of this.tables.values()) {
      cache.epoch++;
      cache.keys.clear();
    }
  }

  private table(name: string): TableCache {
    let cache = this.tables.get(name);
    if (cache === undefined) this.tables.set(name, (cache = { epoch: 0, keys: new BoundedMap(MAX_KEYS), running: new Map() }));
    return cache;
  }

  /**
   * The pool the database layer uses, with each connection watched: once a statement writing a
   * cached table has committed (at once outside a transaction, at `commit` inside one), the
   * statement does not return before this process has applied the write's notifications.
   */
  trackWrites(pool: PoolLike): PoolLike {
    return {
      connect: (async () => {
        const client = await pool.connect();
        if (!this.tracked.has(client)) {
          this.tracked.add(client);
          this.watch(client);
        }
        return client;
      }) as PoolLike['connect'],
      end: () => pool.end(),
    };
  }

  private watch(client: pg.PoolClient): void {
    const state: ClientState = { inTransaction: false, written: new Set() };
    const query = client.query.bind(client) as (config: unknown, values?: unknown) => Promise<unknown>;
    client.query = (async (config: unknown, values?: unknown) => {
      const text = typeof config === 'string' ? config : (config as { text?: string } | undefined)?.text;
      if (typeof text !== 'string') return query(config, values);
      if (BEGIN.test(text)) {
        state.inTransaction = true;
        state.written.clear();
        return query(config, values);
      }
      if (state.inTransaction && END.test(text)) {
        const written = [...state.written];
        state.inTransaction = false;
        state.written.clear();
        const result = await query(config, values);
        if (written.length > 0 && /^\s*commit/i.test(text)) await this.applied(written);
        return result;
      }
      const tables = writtenTables(text);
      if (tables.length === 0) return query(config, values);
      if (state.inTransaction) {
        for (const t of tables) state.written.add(t);
        return query(config, values);
      }
      const result = await query(config, values);
      await this.applied(tables);
      return result;
    }) as pg.PoolClient['query'];
  }

  /**
   * Holds a request until this process has heard every commit made, by any process, before it
   * arrived, so that nothing it reuses from a cache is older than a write answered before it was
   * sent (read-your-writes across processes). Requests arriving together share one round trip.
   * Not listening: nothing is cached, so nothing to wait for; a round trip that does not come back in
   * time drops the connection (caches off) before the request goes on.
   */
  afterSync(proceed: () => void): void {
    if (!this.active) return proceed();
    // Never with the outcome: `proceed` is a hook's `done`, whose argument is an error.
    this.confirm().then(
      () => proceed(),
      () => proceed(),
    );
  }

  /**
   * Waits until this process has heard every notification of the commits made, by any process,
   * before the call: its next read then shows them. For whoever changed the database behind the
   * process's back and reads through its services rather than a request (the CLI commands' tests).
   */
  async catchUp(): Promise<void> {
    if (this.active) await this.confirm();
  }

  /**
   * After this process committed writes to `tables`: confirms a round trip sent after the
   * commit; by then the write's own notifications have been applied. Not confirmed: the
   * connection was dropped (and the cache cleared) or stopped listening; the tables are dropped
   * here too, in case it listens again meanwhile.
   */
  private async applied(tables: string[]): Promise<void> {
    // Not listening: nothing is cached, and listening again clears everything.
    if (!this.active) return;
    if (await this.confirm()) return;
    for (const t of tables) this.invalidate(t);
    if (tables.some((t) => FED.has(t))) this.feed.startOver();
  }
}

const caches = new WeakMap<object, PgReadCache>();

/** Makes `compiledRead` on this Kysely instance use the cache (database.ts, before repositories exist). */
export function attachReadCache(kysely: object, cache: PgReadCache): void {
  caches.set(kysely, cache);
}

export function readCacheOf(kysely: object): PgReadCache | undefined {
  return caches.get(kysely);
}
