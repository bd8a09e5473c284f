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
  /**
   * Assemblies (docs/files.md#for-apps-chunked-uploads): a file an upload's chunks are appended
   * to, which then becomes a blob without its bytes being written again. A store without them
   * keeps every chunk as a blob of its own.
   */
  readonly assemblies?: AssemblyStore;
}

/** Appendable files that become blobs (BlobStore.assemblies). Keys are made by `newKey`. */
export interface AssemblyStore {
  newKey(): string;
  /**
   * Writes `data` at `offset` of assembly `key` (made when missing; whatever lay at and past
   * `offset` is dropped first: a failed append's leftovers), not synced (the blob it becomes is).
   * Its size; rejects with BlobTooLarge past `maxBytes`; undefined, with nothing read, when the
   * assembly is shorter than `offset` (bytes lost in a crash).
   */
  append(key: string, offset: number, data: Readable, maxBytes: number): Promise<number | undefined>;
  /** `size` bytes from `offset`. */
  read(key: string, offset: number, size: number): Readable;
  /** Its size on disk (a crash may leave it shorter than written), undefined when missing. */
  size(key: string): Promise<number | undefined>;
  /**
   * A new blob of the assembly's first `size` bytes, synced, without copying them (the assembly
   * stays until `delete`; it must not be appended to meanwhile).
   */
  seal(key: string, size: number): Promise<{ key: string; size: number }>;
  delete(key: string): Promise<void>;
}

/** A stream went past the size it was allowed. */
export class BlobTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} bytes`);
  }
}
