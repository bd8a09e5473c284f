/**
 * The local-disk blob store: `<DATA_DIR>/files/blobs/<ab>/<key>` (two-character fan-out so no
 * folder grows past a few thousand entries). A put streams into `<DATA_DIR>/files/tmp/` and
 * renames into place only when the stream ended complete, so readers in any process see a
 * whole blob or none; both folders are on one file system, which makes the rename atomic.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobTooLarge, type AssemblyStore, type BlobStat, type BlobStore, type ByteRange } from './storage.js';

const KEY = /^[a-z0-9]{32}$/;

/** Writes `data` to `out`, at most `maxBytes` (else BlobTooLarge): the bytes written. */
async function writeLimited(data: Readable, maxBytes: number, out: fs.WriteStream): Promise<number> {
  let size = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) done(new BlobTooLarge(maxBytes));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(data, limit, out);
  } catch (err) {
    // The file may be opened after the failure: wait until it is closed, so that the
    // removal that follows cannot run before it exists.
    if (!out.closed) await once(out, 'close');
    throw err;
  }
  return size;
}

export class LocalBlobStore implements BlobStore {
  private readonly blobs: string;
  private readonly tmp: string;
  readonly assemblies: AssemblyStore;

  constructor(dataDir: string) {
    this.blobs = path.join(dataDir, 'files', 'blobs');
    this.tmp = path.join(dataDir, 'files', 'tmp');
    this.assemblies = new LocalAssemblies(path.join(dataDir, 'files', 'assembly'), (key, file) => this.link(key, file));
  }

  /** A new blob that is `file` (a hard link: same file system, no bytes copied), synced. */
  private async link(file: string, size: number): Promise<{ key: string; size: number }> {
    return this.commit(async (temp) => {
      await fs.promises.link(file, temp);
      const fd = await fs.promises.open(temp, 'r+');
      try {
        // Exactly the bytes recorded (a failed append may have left more), durable before it is visible.
        await fd.truncate(size);
        await fd.sync();
      } finally {
        await fd.close();
      }
      return size;
    });
  }

  private fileOf(key: string): string {
    // Keys are made here; anything else is a bug or tampering, never a path to follow.
    if (!KEY.test(key)) throw new Error('invalid blob key');
    return path.join(this.blobs, key.slice(0, 2), key);
  }

  private newKey(): string {
    return randomBytes(16).toString('hex');
  }

  /** Streams into a temp file and renames it into place; the temp file is removed on any failure. */
  private async commit(write: (file: string) => Promise<number>): Promise<{ key: string; size: number }> {
    const key = this.newKey();
    await fs.promises.mkdir(this.tmp, { recursive: true });
    const temp = path.join(this.tmp, `${key}.part`);
    try {
      const size = await write(temp);
      const target = this.fileOf(key);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.rename(temp, target);
      return { key, size };
    } catch (err) {
      await fs.promises.rm(temp, { force: true });
      throw err;
    }
  }

  put(data: Readable, maxBytes: number, opts: { durable?: boolean } = {}): Promise<{ key: string; size: number }> {
    return this.commit(async (temp) => {
      const size = await writeLimited(data, maxBytes, fs.createWriteStream(temp, { flags: 'wx' }));
      // Durable before it becomes visible: the rename must not publish data a crash can lose
      // (unless asked not to: an upload's chunks are made durable as the file they become).
      if (opts.durable === false) return size;
      const fd = await fs.promises.open(temp, 'r');
      try {
        await fd.sync();
      } finally {
        await fd.close();
      }
      return size;
    });
  }

  get(key: string, range?: ByteRange): Readable {
    return fs.createReadStream(this.fileOf(key), range ? { start: range.start, end: range.end } : undefined);
  }

  async copy(key: string): Promise<string> {
    const source = this.fileOf(key);
    const { key: copied } = await this.commit(async (temp) => {
      await fs.promises.copyFile(source, temp, fs.constants.COPYFILE_FICLONE);
      return (await fs.promises.stat(temp)).size;
    });
    return copied;
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.fileOf(key), { force: true });
  }

  async stat(key: string): Promise<BlobStat | undefined> {
    try {
      return { size: (await fs.promises.stat(this.fileOf(key))).size };
    } catch {
      return undefined;
    }
  }

  localPath(key: string): string {
    return this.fileOf(key);
  }
}

/**
 * Assemblies on the local disk: `<DATA_DIR>/files/assembly/<key>`, on the blobs' file system, so
 * that sealing one is a hard link into the blobs (docs/files.md#for-apps-chunked-uploads).
 */
class LocalAssemblies implements AssemblyStore {
  constructor(
    private readonly dir: string,
    private readonly linkBlob: (file: string, size: number) => Promise<{ key: string; size: number }>,
  ) {}

  private fileOf(key: string): string {
    if (!KEY.test(key)) throw new Error('invalid assembly key');
    return path.join(this.dir, key);
  }

  newKey(): string {
    return randomBytes(16).toString('hex');
  }

  async append(key: string, offset: number, data: Readable, maxBytes: number): Promise<number | undefined> {
    await fs.promises.mkdir(this.dir, { recursive: true });
    const file = this.fileOf(key);
    // Created when missing, never truncated on opening ('a' would ignore the position).
    const fd = await fs.promises.open(file, fs.constants.O_WRONLY | fs.constants.O_CREAT);
    try {
      // Extending a file that lost bytes would fill them with zeros.
      if ((await fd.stat()).size < offset) return undefined;
      await fd.truncate(offset);
    } finally {
      await fd.close();
    }
    return writeLimited(data, maxBytes, fs.createWriteStream(file, { flags: 'r+', start: offset }));
  }

  read(key: string, offset: number, size: number): Readable {
    // An empty range: createReadStream has no way to say "nothing" (end is inclusive).
    if (size === 0) return Readable.from([]);
    return fs.createReadStream(this.fileOf(key), { start: offset, end: offset + size - 1 });
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await fs.promises.stat(this.fileOf(key))).size;
    } catch {
      return undefined;
    }
  }

  seal(key: string, size: number): Promise<{ key: string; size: number }> {
    return this.linkBlob(this.fileOf(key), size);
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.fileOf(key), { force: true });
  }
}
