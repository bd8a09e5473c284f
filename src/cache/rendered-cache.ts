/**
 * Rendered answers of hot reads (GET /room, GET /room/{token}, the participant list,
 * capabilities), kept per caller and reused only while nothing they were computed from can
 * have changed:
 *
 * - the database's change stamp (cache/direct-reads.ts `changeStamp`: any commit by any process,
 *   any write of this one) is the one read when the answer was computed, or
 * - the answer named the topics it was computed from (its conversations, its caller, ...) and
 *   the change feed (cache/change-feed.ts) shows none of them, nor a global change, since the
 *   feed position read when it was computed: a write into another conversation, by any
 *   process, leaves it in place;
 * - and the clock has not passed the answer's `until` (lobby timers, session keep-alive and
 *   expiry, user status expiry: what changes a record without a write).
 *
 * The stamp and the position are read BEFORE the reads they validate, so a commit made while
 * an answer is computed leaves that answer under an older stamp and position: a change it
 * made to one of the answer's topics is seen. PostgreSQL has no stamp: answers are kept there
 * on the feed's word only (while its LISTEN connection listens). Inside a SQLite transaction
 * nothing is kept. Callers put every other input of the answer in the key (user, options,
 * format, version, cookie session).
 *
 * With `verify` (VERIFY_KEPT_RECORDS, the test suites) every answer reused under a changed
 * stamp (on the feed's word) is compared byte for byte with a fresh computation, and a
 * difference fails the request: every write of every suite checks that its topics are fed.
 */
import type { ChangeFeed } from './change-feed.js';
import type { Kysely } from 'kysely';
/**
 * The caches hold queries of any schema: they key on the Kysely instance and the compiled
 * statement, never on a table's shape (so this layer imports nothing from db/).
 */
type Database = any;
import { changeFeedOf, changeStamp } from './direct-reads.js';
import { nowSeconds } from '../domain/time.js';

export interface RenderedAnswer {
  /** Encoded once when stored (sending a large string re-encodes it on every write); an answer that is not stored keeps its string, encoded once as it is sent. */
  body: Buffer | string;
  contentType: string;
  httpStatus: number;
  /** Headers that belong to the answer (not the per-request ones). */
  headers?: Record<string, string>;
}

/** What `compute` hands back: the rendered answer, its expiry, and the topics it was computed from (none: kept under the stamp only). */
export interface ComputedAnswer {
  rendered: { body: string | Buffer; contentType: string; httpStatus: number };
  until: number;
  headers?: Record<string, string>;
  topics?: readonly string[];
}

/** The change stamp (SQLite) and feed position read before an answer is computed. */
interface Reading {
  stamp: string | undefined;
  position: number | undefined;
}

interface Entry extends Reading {
  until: number;
  topics: readonly string[] | undefined;
  answer: RenderedAnswer;
  bytes: number;
}

/** Entries per cache, and their bodies' bytes (a 200-conversation list is about 230 KB). */
const MAX_ENTRIES = 2000;
const MAX_BYTES = 64 * 1024 * 1024;

export class RenderedCache {
  /** Oldest first (re-inserted when stored). */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly feed: ChangeFeed;
  constructor(
    private readonly kysely: Kysely<Database>,
    /** Reuse on the feed's word is compared with a fresh computation (VERIFY_KEPT_RECORDS; tests counting statements turn it off while they count). */
    public verify = false,
  ) {
    this.feed = changeFeedOf(kysely);
  }

  /**
   * The answer stored under `key` while still valid, else `compute`s, stores and returns a new
   * one (`key` undefined: computed every time, never stored; a thrown error stores nothing).
   */
  async through(key: string | undefined, compute: () => Promise<ComputedAnswer>): Promise<RenderedAnswer> {
    // Taken before `compute` reads anything (see the file comment).
    const reading = key === undefined ? undefined : this.read();
    const hit = reading === undefined ? undefined : this.lookup(key!, reading);
    if (hit !== undefined) {
      if (this.verify && hit.onFeed) await this.verifyReuse(key!, hit.answer, compute, this.entries.get(key!));
      return hit.answer;
    }
    const out = await compute();
    return this.store(key, reading, out);
  }

  /** The current change stamp (SQLite) and feed position, or undefined when answers cannot be kept now. */
  private read(): Reading | undefined {
    const position = this.feed.position();
    const stamp = changeStamp(this.kysely);
    return stamp === undefined && position === undefined ? undefined : { stamp, position };
  }

  /** The answer stored under `key` if still valid now; `onFeed` when the stamp moved (or there is none) and the feed vouched for it. */
  private lookup(key: string, now: Reading): { answer: RenderedAnswer; onFeed: boolean } | undefined {
    const e = this.entries.get(key);
    if (e === undefined || nowSeconds() > e.until) return undefined;
    if (e.stamp !== undefined && e.stamp === now.stamp) return { answer: e.answer, onFeed: false };
    if (e.topics === undefined || e.position === undefined || now.position === undefined) return undefined;
    if (!this.feed.unchangedSince(e.position, e.topics)) return undefined;
    return { answer: e.answer, onFeed: true };
  }

  /** Stores an answer computed from reads made after `reading` (undefined stores nothing) and returns it encoded. */
  private store(key: string | undefined, reading: Reading | undefined, out: ComputedAnswer): RenderedAnswer {
    const { rendered, headers } = out;
    // Kept only where it can be checked again: under a stamp, or with topics and a position.
    const checkable = reading !== undefined && (reading.stamp !== undefined || (out.topics !== undefined && reading.position !== undefined));
    if (key === undefined || !checkable) return { body: rendered.body, contentType: rendered.contentType, httpStatus: rendered.httpStatus, headers };
    const body = typeof rendered.body === 'string' ? Buffer.from(rendered.body) : rendered.body;
    const answer: RenderedAnswer = { body, contentType: rendered.contentType, httpStatus: rendered.httpStatus, headers };
    this.forget(key);
    const entry: Entry = { ...reading!, until: out.until, topics: out.topics, answer, bytes: body.length };
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    // The least recently computed entries go first.
    while (this.entries.size > MAX_ENTRIES || this.bytes > MAX_BYTES) this.forget(this.entries.keys().next().value!);
    return answer;
  }

  private forget(key: string): void {
    const e = this.entries.get(key);
    if (e === undefined) return;
    this.entries.delete(key);
    this.bytes -= e.bytes;
  }

  /** VERIFY_KEPT_RECORDS: a reuse on the feed's word must be what computing it now gives. */
  private async verifyReuse(key: string, reused: RenderedAnswer, compute: () => Promise<ComputedAnswer>, entry: Entry | undefined): Promise<void> {
    const fresh = await compute();
    const body = Buffer.from(fresh.rendered.body);
    const headers = JSON.stringify(fresh.headers ?? {});
    if (!body.equals(Buffer.from(reused.body)) || headers !== JSON.stringify(reused.headers ?? {})) {
      // A write that committed after the reuse was decided (a background delivery, another
      // process) explains the difference: the reuse was right when the request read the feed.
      // The feed hears of a PostgreSQL commit through LISTEN, so it is given a moment.
      if (entry?.position !== undefined && entry.topics !== undefined) {
        for (let i = 0; i < 5 && this.feed.unchangedSince(entry.position, entry.topics); i++) await new Promise((r) => setTimeout(r, 20));
        if (!this.feed.unchangedSince(entry.position, entry.topics)) return;
      }
      throw new Error(
        `rendered answer reused on the change feed is stale (${key.split('\0')[0]}):\n reused ${reused.body.toString()}\n fresh  ${body.toString()}`,
      );
    }
  }
}

/**
 * The process's rendered answers, one store per family of routes (each with its own bounds, so
 * that polls of one family do not push the other's answers out). Built once in createServices;
 * a route picks its store with `ocsRoute`'s `cache` option (src/http/ocs/cached-answer.ts).
 */
export class RenderedAnswers {
  readonly stores: {
    /** GET /room, GET /room/{token} and the participant lists. */
    readonly conversations: RenderedCache;
    /** GET /cloud/capabilities. */
    readonly capabilities: RenderedCache;
  };
  constructor(kysely: Kysely<Database>, verify = false) {
    this.stores = { conversations: new RenderedCache(kysely, verify), capabilities: new RenderedCache(kysely, verify) };
  }

  /** VERIFY_KEPT_RECORDS for every store (tests counting statements turn it off while they count). */
  get verify(): boolean {
    return this.stores.conversations.verify;
  }
  set verify(on: boolean) {
    for (const store of Object.values(this.stores)) store.verify = on;
  }
}
