/**
 * JSON written straight into bytes for large lists of records of one shape (the participant
 * list: 5,000 records, 1.4 MB). `JSON.stringify` builds a 1.4 MB string that is then encoded
 * again as UTF-8 when it is sent; measured on that list, stringify plus encoding cost 5.4 ms of
 * CPU and this writer 3.7 ms. A record writer is compiled once per shape (its keys in order) and
 * produces exactly `JSON.stringify(record)`, as long as the record's own keys appear in that
 * order (keys whose value is undefined, a function or a symbol are skipped, as stringify does).
 *
 * Strings of printable ASCII are copied byte by byte; any other string (escapes, non-ASCII, lone
 * surrogates) goes through `JSON.stringify` and is encoded as UTF-8, so the bytes are stringify's.
 * Values other than strings, finite numbers, booleans, null and arrays go through stringify too.
 */

/**
 * The size the next buffer starts at: the largest answer written so far (bounded), so a list of
 * the same size is written without growing and handed out without a copy.
 */
let sizeHint = 1 << 16;
const MAX_HINT = 1 << 24;

export class JsonBytes {
  buf = Buffer.allocUnsafe(sizeHint);
  pos = 0;

  private grow(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Bytes known in advance (punctuation and keys). */
  bytes(b: Uint8Array): void {
    this.grow(b.length);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < b.length; i++) buf[p++] = b[i];
    this.pos = p;
  }

  /** Any string, written as it is in UTF-8 (JSON text made elsewhere). */
  utf8(s: string): void {
    this.grow(s.length * 3);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  string(s: string): void {
    this.grow(s.length + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 0x22;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      // Printable ASCII without `"` and `\`: the same byte in JSON and in UTF-8.
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return this.utf8(JSON.stringify(s));
      buf[p++] = c;
    }
    buf[p++] = 0x22;
    this.pos = p;
  }

  number(n: number): void {
    if (n >= 0 && n <= 0x7fffffff && (n | 0) === n) {
      // Non-negative small integers (ids, flags, timestamps): digits without a string.
      let digits = 1;
      for (let d = n; d >= 10; d = (d / 10) | 0) digits++;
      this.grow(digits);
      let p = this.pos + digits;
      this.pos = p;
      const buf = this.buf;
      let d = n;
      do {
        buf[--p] = 0x30 + (d % 10);
        d = (d / 10) | 0;
      } while (d > 0);
      return;
    }
    this.utf8(JSON.stringify(n)); // floats, negatives, NaN/Infinity (null), as stringify writes them
  }

  value(v: unknown): void {
    if (typeof v === 'string') this.string(v);
    else if (typeof v === 'number') this.number(v);
    else if (v === null) this.bytes(NULL);
    else if (typeof v === 'boolean') this.bytes(v ? TRUE : FALSE);
    else if (Array.isArray(v)) {
      this.bytes(OPEN_ARRAY);
      for (let i = 0; i < v.length; i++) {
        if (i > 0) this.bytes(COMMA);
        const e: unknown = v[i];
        // Inside arrays stringify writes null for what it would skip in an object.
        if (e === undefined || typeof e === 'function' || typeof e === 'symbol') this.bytes(NULL);
        else this.value(e);
      }
      this.bytes(CLOSE_ARRAY);
    } else this.utf8(JSON.stringify(v) ?? 'null');
  }

  /**
   * The bytes written: a view of the writer's buffer when it is mostly used, else a copy (a small
   * answer, possibly kept by the rendered-answer cache, must not hold a large buffer).
   */
  take(): Buffer {
    if (this.pos > sizeHint) sizeHint = Math.min(this.pos + (this.pos >> 4), MAX_HINT);
    if (this.pos >= this.buf.length >> 1) return this.buf.subarray(0, this.pos);
    return Buffer.from(this.buf.subarray(0, this.pos));
  }
}

const ascii = (s: string) => Uint8Array.from(Buffer.from(s, 'utf8'));
const NULL = ascii('null');
const TRUE = ascii('true');
const FALSE = ascii('false');
const COMMA = ascii(',');
const OPEN_ARRAY = ascii('[');
const CLOSE_ARRAY = ascii(']');

export type RecordWriter<T> = (w: JsonBytes, record: T) => void;

/**
 * `unknown` when the list `K` names every key of `T`; else a type no list matches, naming the
 * missing keys (a key left out of the list would be left out of the JSON answer only, not XML).
 */
type NamesEveryKey<T, K extends readonly PropertyKey[]> = [Exclude<keyof T, K[number]>] extends [never]
  ? unknown
  : { missingKeys: Exclude<keyof T, K[number]> };

/**
 * The writer of records with these keys, in this order: `{"k":v,...}` with named property reads
 * (compiled, so every read is monomorphic on a record shape). Called with both type arguments,
 * `compileRecordWriter<Rec, typeof REC_KEYS>(REC_KEYS)`, so a list missing a key does not compile.
 */
export function compileRecordWriter<T extends object, K extends readonly (keyof T & string)[]>(keys: K & NamesEveryKey<T, K>): RecordWriter<T> {
  const first = keys.map((k) => ascii('{' + JSON.stringify(k) + ':'));
  const next = keys.map((k) => ascii(',' + JSON.stringify(k) + ':'));
  const body = keys
    .map(
      (k, i) =>
        `v = r[${JSON.stringify(k)}];\n` +
        `if (v !== undefined && typeof v !== 'function' && typeof v !== 'symbol') { w.bytes(n ? next[${i}] : first[${i}]); n = true; w.value(v); }`,
    )
    .join('\n');
  const compiled = new Function('first', 'next', 'open', 'close', `return function (w, r) { let v; let n = false;\n${body}\nw.bytes(n ? close : open); };`);
  return compiled(first, next, ascii('{}'), ascii('}')) as RecordWriter<T>;
}

/**
 * A list of records that the OCS layer writes with `write` in JSON (the `data` of an answer);
 * XML and everything else see `records`.
 */
export class WrittenList<T> {
  constructor(
    readonly records: readonly T[],
    readonly write: RecordWriter<T>,
  ) {}

  writeJson(w: JsonBytes): void {
    w.bytes(OPEN_ARRAY);
    for (let i = 0; i < this.records.length; i++) {
      if (i > 0) w.bytes(COMMA);
      this.write(w, this.records[i]);
    }
    w.bytes(CLOSE_ARRAY);
  }
}

/**
 * A JSON array whose elements are already JSON text as bytes (records kept across requests,
 * services/conversations/conversation-list.ts): the OCS layer copies them into the answer without parsing or
 * serializing anything. XML (rare for these lists) parses them back.
 */
export class JsonArrayOfParts {
  constructor(readonly parts: readonly Buffer[]) {}

  /** `{"ocs":{"meta":…,"data":[part,part,…]}}` in one buffer of the exact size. */
  inFrame(head: string, tail: string): Buffer {
    let size = Buffer.byteLength(head) + Buffer.byteLength(tail) + 2 + Math.max(0, this.parts.length - 1);
    for (const p of this.parts) size += p.length;
    const out = Buffer.allocUnsafe(size);
    let pos = out.write(head, 0, 'utf8');
    out[pos++] = 0x5b;
    for (let i = 0; i < this.parts.length; i++) {
      if (i > 0) out[pos++] = 0x2c;
      pos += this.parts[i].copy(out, pos);
    }
    out[pos++] = 0x5d;
    out.write(tail, pos, 'utf8');
    return out;
  }

  records(): unknown[] {
    return this.parts.map((p) => JSON.parse(p.toString('utf8')) as unknown);
  }
}

/**
 * An object keyed by ids in a given order, as PHP writes an array with integer keys: in the order
 * they were added (Talk's shared-items list, newest first). A JavaScript object would list
 * integer keys ascending whatever the order they were set in, so the envelope writes this one
 * entry by entry. In XML numeric keys are `<element>`s, in the same order.
 */
export class IdKeyedObject {
  constructor(readonly entries: ReadonlyArray<readonly [number, unknown]>) {}

  /** `{"<id>":value,…}` in the entries' order. */
  json(): string {
    return '{' + this.entries.map(([id, v]) => `"${id}":${JSON.stringify(v) ?? 'null'}`).join(',') + '}';
  }

  /** The values in order: what XML writes for numeric keys. */
  values(): unknown[] {
    return this.entries.map(([, v]) => v);
  }
}
