/**
 * Rendered answers of hot reads (GET /room, GET /room/{token}, capabilities), kept per caller
 * and reused only while nothing they were computed from can have changed:
 *
 * - the database's change stamp (db/direct-reads.ts `changeStamp`: any commit by any process,
 *   any write of this one) is the one read when the answer was computed, and
 * - the clock has not passed the answer's `until` (lobby timers, session keep-alive and expiry,
 *   user status expiry: what changes a record without a write).
 *
 * The stamp is read BEFORE the reads it validates, so a commit made while an answer is computed
 * leaves that answer under an older stamp: never served. On PostgreSQL (no stamp) and inside a
 * transaction nothing is cached. Callers put every other input of the answer in the key
 * (user, options, format, version) and skip the cache when the request carries state the key
 * does not name (cookie sessions).
 */
import { changeStamp, type Db } from '../db/database.js';
import { BoundedMap } from '../domain/bounded-map.js';
import { nowSeconds } from '../domain/time.js';

export interface RenderedAnswer {
  /** Encoded once when stored (sending a large string re-encodes it on every write); an answer that is not stored keeps its string, encoded once as it is sent. */
  body: Buffer | string;
  contentType: string;
  httpStatus: number;
  /** Headers that belong to the answer (not the per-request ones). */
  headers?: Record<string, string>;
}

interface Entry {
  stamp: string;
  until: number;
  answer: RenderedAnswer;
}

const MAX_ENTRIES = 2000;

export class RenderedCache {
  private readonly entries = new BoundedMap<string, Entry>(MAX_ENTRIES);

  constructor(private readonly db: Db) {}

  /**
   * The answer stored under `key` while still valid, else `compute`s, stores and returns a new
   * one (`key` undefined: computed every time, never stored; a thrown error stores nothing).
   */
  async through(
    key: string | undefined,
    compute: () => Promise<{ rendered: { body: string | Buffer; contentType: string; httpStatus: number }; until: number; headers?: Record<string, string> }>,
  ): Promise<RenderedAnswer> {
    // Taken before `compute` reads anything (see the file comment).
    const stamp = key === undefined ? undefined : this.stamp();
    const hit = stamp === undefined ? undefined : this.get(key!, stamp);
    if (hit) return hit;
    const out = await compute();
    return this.set(key, stamp, out.until, out.rendered, out.headers);
  }

  /** The current change stamp, or undefined when answers cannot be cached now. */
  stamp(): string | undefined {
    return changeStamp(this.db.kysely);
  }

  /** The answer stored under `key` for this stamp, unless its time has passed. */
  get(key: string, stamp: string): RenderedAnswer | undefined {
    const e = this.entries.get(key);
    if (e === undefined || e.stamp !== stamp || nowSeconds() > e.until) return undefined;
    return e.answer;
  }

  /**
   * Stores a rendered answer computed from reads made after `stamp` was taken (valid up to
   * second `until`; a stamp of undefined stores nothing) and returns it encoded.
   */
  set(
    key: string | undefined,
    stamp: string | undefined,
    until: number,
    rendered: { body: string | Buffer; contentType: string; httpStatus: number },
    headers?: Record<string, string>,
  ): RenderedAnswer {
    if (key === undefined || stamp === undefined) return { body: rendered.body, contentType: rendered.contentType, httpStatus: rendered.httpStatus, headers };
    const body = typeof rendered.body === 'string' ? Buffer.from(rendered.body) : rendered.body;
    const answer: RenderedAnswer = { body, contentType: rendered.contentType, httpStatus: rendered.httpStatus, headers };
    // Re-inserted so the bounded map forgets the least recently computed entry first.
    this.entries.delete(key);
    this.entries.set(key, { stamp, until, answer });
    return answer;
  }
}
