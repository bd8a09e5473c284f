/**
 * Where file contents live (docs/files.md). The metadata (names, sizes, etags) is in the
 * database; a store only keeps immutable blobs under keys it chooses, so that an object store
 * can replace the local disk without touching the rest. A blob is never changed in place: a new
 * version of a file is a new blob, and the old one is deleted once the database no longer
 * points at it.
 */
import type { Readable } from 'node:stream';

export interface BlobStat {
  size: number;
}

/** A byte range, both ends included (HTTP Range semantics). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobStore {
  /**
   * Stores a stream as a new blob, atomically: the blob exists complete or not at all (an error
   * mid-way leaves nothing visible), and durably (a crash after it resolved loses nothing).
   * Rejects with BlobTooLarge after `maxBytes`. With `durable: false` (a chunk of an upload,
   * made durable only as part of the file it becomes) a crash of the machine may leave the blob
   * short or missing: whoever reads it checks its size first.
   */
  put(data: Readable, maxBytes: number, opts?: { durable?: boolean }): Promise<{ key: string; size: number }>;
  /** The blob's bytes, or only `range` of them. */
  get(key: string, range?: ByteRange): Readable;
  /** A new blob with the same bytes. */
  copy(key: string): Promise<string>;
  /** Removes a blob; a missing one is no error. */
  delete(key: string): Promise<void>;
  stat(key: string): Promise<BlobStat | undefined>;
  /** A local file path of the blob for libraries that read files (image headers), if the store has one. */
  localPath(key: string): string | undefined;
}

/** A stream went past the size it was allowed. */
export class BlobTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} bytes`);
  }
}
