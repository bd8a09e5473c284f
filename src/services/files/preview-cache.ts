/**
 * Made previews kept on disk (docs/files.md#for-apps-previews), so that a repeated request is
 * answered without decoding the image again: `<DATA_DIR>/files/previews/<fileId>/<etag>-<w>x<h>-<a>.<ext>`.
 * The file's etag is part of the name, so a new version of the file is never answered from an
 * old preview; the old version's previews are removed when the new one's first is stored.
 * Entries are written to a temp file and renamed into place (readers in any process see a
 * whole preview or none). The cache is bounded by app config `files_preview_cache_size`
 * (bytes, 0 turns it off): after about an eighth of it was written by this process, the
 * least recently used entries are removed until it is at most four fifths full.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface PreviewKey {
  fileId: number;
  etag: string;
  width: number;
  height: number;
  keepAspect: boolean;
  ext: 'png' | 'jpg';
}

/** Etags are made by Parley (hex); anything else is not cached rather than used in a file name. */
const SAFE_ETAG = /^[A-Za-z0-9]{1,64}$/;

export class PreviewCache {
  private readonly dir: string;
  /** Bytes this process stored since its last sweep (undefined: no sweep yet, one is due). */
  private written: number | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'files', 'previews');
  }

  private fileOf(key: PreviewKey): string | undefined {
    if (!SAFE_ETAG.test(key.etag) || !Number.isSafeInteger(key.fileId) || key.fileId <= 0) return undefined;
    return path.join(this.dir, String(key.fileId), `${key.etag}-${key.width}x${key.height}-${key.keepAspect ? 1 : 0}.${key.ext}`);
  }

  /** The stored preview, or undefined; a hit counts as a use (its time is renewed for the sweep). */
  async get(key: PreviewKey): Promise<Buffer | undefined> {
    const file = this.fileOf(key);
    if (!file) return undefined;
    try {
      const data = await fs.promises.readFile(file);
      const now = new Date();
      await fs.promises.utimes(file, now, now).catch(() => undefined);
      return data;
    } catch {
      return undefined;
    }
  }

  /** Stores a made preview (failures are ignored: the cache is an optimisation) and drops the file's older versions' previews. */
  async put(key: PreviewKey, data: Buffer, limit: number): Promise<void> {
    const file = this.fileOf(key);
    if (!file || limit <= 0 || data.length > limit) return;
    const folder = path.dirname(file);
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.promises.mkdir(folder, { recursive: true });
      await fs.promises.writeFile(temp, data);
      await fs.promises.rename(temp, file);
      for (const name of await fs.promises.readdir(folder))
        if (!name.startsWith(`${key.etag}-`) && !name.endsWith('.tmp')) await fs.promises.rm(path.join(folder, name), { force: true });
    } catch {
      await fs.promises.rm(temp, { force: true }).catch(() => undefined);
      return;
    }
    this.written = this.written === undefined ? undefined : this.written + data.length;
    if (this.written === undefined || this.written > limit / 8) await this.sweep(limit);
  }

  /** Removes least recently used entries until the cache is at most four fifths of `limit` (one sweep at a time per process). */
  private async sweep(limit: number): Promise<void> {
    if (!this.sweeping) {
      this.sweeping = this.trim(limit).finally(() => {
        this.sweeping = undefined;
        this.written = 0;
      });
    }
    await this.sweeping;
  }

  private async trim(limit: number): Promise<void> {
    const entries: Array<{ file: string; size: number; used: number }> = [];
    let total = 0;
    let folders: string[];
    try {
      folders = await fs.promises.readdir(this.dir);
    } catch {
      return;
    }
    for (const folder of folders) {
      const at = path.join(this.dir, folder);
      let names: string[] = [];
      try {
        names = await fs.promises.readdir(at);
      } catch {
        continue;
      }
      if (names.length === 0) await fs.promises.rmdir(at).catch(() => undefined);
      for (const name of names) {
        if (name.endsWith('.tmp')) continue;
        const stat = await fs.promises.stat(path.join(at, name)).catch(() => undefined);
        if (!stat) continue;
        entries.push({ file: path.join(at, name), size: stat.size, used: stat.mtimeMs });
        total += stat.size;
      }
    }
    if (total <= limit) return;
    entries.sort((a, b) => a.used - b.used);
    const target = Math.floor((limit * 4) / 5);
    for (const e of entries) {
      if (total <= target) break;
      await fs.promises.rm(e.file, { force: true });
      total -= e.size;
    }
  }
}
