/**
 * Users' own files (docs/files.md): the operations WebDAV offers, over the metadata in the
 * database and the contents in a blob store. Every change to a user's tree runs in one
 * transaction under the lock of that user's root row, so quota checks and path changes of one
 * user queue instead of racing; blobs are written before the transaction (a failed one leaves
 * an unreferenced blob that is deleted at once) and old ones deleted after it commits.
 */
import type { Readable } from 'node:stream';
import sharp from 'sharp';
import type { Db } from '../../db/database.js';
import type { FileRow } from '../../db/repositories/files.js';
import type { Repositories } from '../../db/repositories/index.js';
import { badRequest, conflict, forbidden, insufficientStorage, methodNotAllowed, notFound, payloadTooLarge, preconditionFailed } from '../../domain/errors.js';
import { ancestorsOf, baseName, FOLDER_MIMETYPE, isWithin, mimetypeFor, parentOf } from '../../domain/files/paths.js';
import { randomString } from '../../domain/passwords.js';
import { nowSeconds } from '../../domain/time.js';
import type { AppConfigService } from '../platform/app-config.js';
import { BlobTooLarge, type BlobStore, type ByteRange } from './storage.js';

const ETAG_ALPHABET = '0123456789abcdef';
const newEtag = () => randomString(13, ETAG_ALPHABET);
/** Image types whose header gives width and height (the rich object and previews use them). */
const SIZED_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export interface WriteResult {
  row: FileRow;
  created: boolean;
}

export class FilesService {
  constructor(
    private readonly db: Db,
    private readonly repos: Repositories,
    private readonly store: BlobStore,
    private readonly appConfig: AppConfigService,
  ) {}

  /** A deleted user's files go with them (subscribed to `user.deleting`). */
  async forget(owner: string): Promise<void> {
    for (const key of await this.repos.files.deleteOwner(owner)) await this.store.delete(key);
  }

  /** The user's root folder row, created on first need. */
  async root(owner: string): Promise<FileRow> {
    const found = await this.repos.files.find(owner, '');
    if (found) return found;
    await this.repos.files.insertIfAbsent(folderRow(owner, ''));
    return (await this.repos.files.find(owner, ''))!;
  }

  /** The file or folder at `path`, or undefined. */
  async stat(owner: string, path: string): Promise<FileRow | undefined> {
    return path === '' ? this.root(owner) : this.repos.files.find(owner, path);
  }

  async require(owner: string, path: string): Promise<FileRow> {
    const row = await this.stat(owner, path);
    if (!row) throw notFound('file', 'File not found');
    return row;
  }

  /** A folder's entries (Depth 1). */
  children(owner: string, folder: FileRow): Promise<FileRow[]> {
    return folder.is_dir ? this.repos.files.children(owner, folder.path) : Promise.resolve([]);
  }

  /** The limits from app config: bytes per file, and the user's quota (-1 unlimited). */
  async limits(): Promise<{ maxFileSize: number; quota: number }> {
    const cfg = await this.appConfig.snapshot();
    return { maxFileSize: cfg.int('files_max_file_size'), quota: cfg.int('files_quota') };
  }

  /** Bytes used and available (-3: unlimited, as Nextcloud's `quota-available-bytes`). */
  async quota(owner: string): Promise<{ used: number; available: number }> {
    const [{ quota }, used] = await Promise.all([this.limits(), this.repos.files.usage(owner)]);
    return { used, available: quota < 0 ? -3 : Math.max(0, quota - used) };
  }

  /** The bytes of a file (or a range of them). */
  read(row: FileRow, range?: ByteRange): Readable {
    if (row.is_dir || !row.blob) throw methodNotAllowed('folder', 'A folder has no content to download');
    return this.store.get(row.blob, range);
  }

  /**
   * PUT: writes `data` as the file at `path` (new, or a new version of an existing file).
   * 409 `parent` without the parent folder, 405 `folder` onto a folder, 413 `size` above the
   * per-file limit, 507 `quota` past the user's quota. `declared` is the Content-Length when
   * known, checked before a byte is read.
   */
  async write(owner: string, path: string, data: Readable, declared: number | undefined, mtime?: number): Promise<WriteResult> {
    if (path === '') throw methodNotAllowed('folder', 'Cannot write to the root folder');
    const { maxFileSize, quota } = await this.limits();
    if (declared !== undefined && declared > maxFileSize) throw tooLarge(maxFileSize);
    if (declared !== undefined && quota >= 0 && (await this.repos.files.usage(owner)) + declared > quota) throw overQuota();
    await this.precheckTarget(owner, path);
    const blob = await storeStream(this.store, data, maxFileSize, maxFileSize);
    try {
      return await this.commitBlob(owner, path, blob, quota, mtime);
    } catch (err) {
      await this.store.delete(blob.key);
      throw err;
    }
  }

  /**
   * Points `path` at `blob`, already stored (a chunked upload's assembly, sealed), with write's
   * refusals; the blob is deleted when refused.
   */
  async writeStored(owner: string, path: string, blob: { key: string; size: number }): Promise<WriteResult> {
    try {
      if (path === '') throw methodNotAllowed('folder', 'Cannot write to the root folder');
      const { maxFileSize, quota } = await this.limits();
      if (blob.size > maxFileSize) throw tooLarge(maxFileSize);
      await this.precheckTarget(owner, path);
      return await this.commitBlob(owner, path, blob, quota);
    } catch (err) {
      await this.store.delete(blob.key);
      throw err;
    }
  }

  /** Refuses before reading a body what would be refused after it: a missing parent, a folder in the way. */
  private async precheckTarget(owner: string, path: string): Promise<void> {
    const parent = await this.stat(owner, parentOf(path)!);
    if (!parent || !parent.is_dir) throw conflict({ error: 'parent', message: 'The parent folder does not exist' });
    const existing = await this.repos.files.find(owner, path);
    if (existing?.is_dir) throw methodNotAllowed('folder', 'A folder exists at this path');
  }

  /** Points `path` at a stored blob in one transaction (quota checked under the tree's lock). */
  async commitBlob(owner: string, path: string, blob: { key: string; size: number }, quota: number, mtime?: number): Promise<WriteResult> {
    const dims = await this.imageSize(blob.key, mimetypeFor(baseName(path)));
    await this.root(owner);
    const now = nowSeconds();
    const { result, oldBlob } = await this.db.kysely.transaction().execute(async (trx) => {
      const files = this.repos.withTransaction(trx).files;
      await files.lockTree(owner);
      const parent = parentOf(path)!;
      const parentRow = await files.find(owner, parent);
      if (!parentRow || !parentRow.is_dir) throw conflict({ error: 'parent', message: 'The parent folder does not exist' });
      const existing = await files.find(owner, path);
      if (existing?.is_dir) throw methodNotAllowed('folder', 'A folder exists at this path');
      if (quota >= 0 && (await files.usage(owner)) - (existing?.size ?? 0) + blob.size > quota) throw overQuota();
      const set = {
        size: blob.size,
        mimetype: mimetypeFor(baseName(path)),
        etag: newEtag(),
        mtime: mtime ?? now,
        width: dims?.width ?? null,
        height: dims?.height ?? null,
        blob: blob.key,
      };
      let row: FileRow;
      if (existing) {
        await files.updateFile(existing.id, set);
        row = { ...existing, ...set };
      } else {
        const id = await files.insertIfAbsent({ owner, path, parent, name: baseName(path), is_dir: 0, ...set });
        row = { id: id!, owner, path, parent, name: baseName(path), is_dir: 0, ...set };
      }
      await files.touch(owner, ancestorsOf(path), newEtag(), now);
      return { result: { row, created: !existing }, oldBlob: existing?.blob ?? null };
    });
    if (oldBlob) await this.store.delete(oldBlob);
    return result;
  }

  /** Width and height from an image's header (never decoding it), for the types that have one. */
  private async imageSize(key: string, mimetype: string): Promise<{ width: number; height: number } | undefined> {
    const file = this.store.localPath(key);
    if (!file || !SIZED_IMAGES.has(mimetype)) return undefined;
    try {
      const meta = await sharp(file).metadata();
      if (!meta.width || !meta.height) return undefined;
      // EXIF orientations 5–8 turn the picture a quarter: viewers see it the other way round.
      return (meta.orientation ?? 1) >= 5 ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
    } catch {
      return undefined;
    }
  }

  /** MKCOL: 405 `exists` when something is there, 409 `parent` without the parent folder. */
  async mkdir(owner: string, path: string): Promise<FileRow> {
    if (path === '') throw methodNotAllowed('exists', 'The root folder exists');
    await this.root(owner);
    return this.db.kysely.transaction().execute(async (trx) => {
      const files = this.repos.withTransaction(trx).files;
      await files.lockTree(owner);
      const parent = await files.find(owner, parentOf(path)!);
      if (!parent || !parent.is_dir) throw conflict({ error: 'parent', message: 'The parent folder does not exist' });
      const id = await files.insertIfAbsent(folderRow(owner, path));
      if (id === undefined) throw methodNotAllowed('exists', 'Something already exists at this path');
      await files.touch(owner, ancestorsOf(path), newEtag(), nowSeconds());
      return (await files.findById(id))!;
    });
  }

  /**
   * The folder at `path` and its missing ancestors (the attachment folder, created on first
   * need, docs/reference/files.md#where-received-files-appear). 400 `folder` when a file is in
   * the way. Concurrent callers agree: each level is an insert-if-absent.
   */
  async ensureFolder(owner: string, path: string): Promise<FileRow> {
    let row = await this.root(owner);
    if (path === '') return row;
    const names = path.split('/');
    for (let i = 1; i <= names.length; i++) {
      const at = names.slice(0, i).join('/');
      const found = await this.repos.files.find(owner, at);
      if (found && !found.is_dir) throw badRequest('folder', `"${at}" is a file, not a folder`);
      if (found) {
        row = found;
        continue;
      }
      try {
        row = await this.mkdir(owner, at);
      } catch (err) {
        // Made meanwhile by a concurrent caller: use theirs.
        const again = await this.repos.files.find(owner, at);
        if (!again?.is_dir) throw err;
        row = again;
      }
    }
    return row;
  }

  /** DELETE: the file or folder with everything in it. 404 when missing; the root cannot go. */
  async remove(owner: string, path: string): Promise<void> {
    if (path === '') throw forbiddenRoot();
    const blobs = await this.db.kysely.transaction().execute(async (trx) => {
      const files = this.repos.withTransaction(trx).files;
      await files.lockTree(owner);
      if (!(await files.find(owner, path))) throw notFound('file', 'File not found');
      const gone = await files.deleteSubtree(owner, path);
      await files.touch(owner, ancestorsOf(path), newEtag(), nowSeconds());
      return gone;
    });
    for (const key of blobs) await this.store.delete(key);
  }

  /**
   * MOVE and COPY within the user's tree. 404 source missing, 409 `parent` (no destination
   * folder), 412 `overwrite` (destination exists and Overwrite: F), 403 `target` (into itself),
   * 507 `quota` (a copy past the quota). Answers whether the destination existed before.
   */
  async transfer(kind: 'move' | 'copy', owner: string, from: string, to: string, overwrite: boolean): Promise<{ replaced: boolean }> {
    if (from === '' || to === '') throw forbiddenRoot();
    if (from === to) throw forbidden('target', 'Source and destination are the same');
    if (isWithin(to, from)) throw forbidden('target', 'A folder cannot be moved or copied into itself');
    const source = await this.require(owner, from);
    await this.root(owner);
    // A copy's blobs are duplicated before the transaction; the rows point at them inside it.
    const copies = kind === 'copy' ? await this.copyBlobs(await this.repos.files.subtree(owner, from)) : undefined;
    // Read before the transaction: on SQLite its one connection is held until the commit.
    const { quota } = await this.limits();
    let freed: string[] = [];
    try {
      const outcome = await this.db.kysely.transaction().execute(async (trx) => {
        const files = this.repos.withTransaction(trx).files;
        await files.lockTree(owner);
        if (!(await files.find(owner, from))) throw notFound('file', 'File not found');
        const parent = await files.find(owner, parentOf(to)!);
        if (!parent || !parent.is_dir) throw conflict({ error: 'parent', message: 'The destination folder does not exist' });
        const existing = await files.find(owner, to);
        if (existing && !overwrite) throw preconditionFailed('overwrite');
        if (existing) freed = await files.deleteSubtree(owner, to);
        const now = nowSeconds();
        if (kind === 'move') {
          await files.moveSubtree(owner, from, to, parentOf(to)!, baseName(to), source.is_dir ? newEtag() : source.etag, source.mtime);
          await files.touch(owner, ancestorsOf(from), newEtag(), now);
        } else {
          const { rows, bytes } = copies!;
          if (quota >= 0 && (await files.usage(owner)) + bytes > quota) throw overQuota();
          await files.insertMany(rows.map((r) => relocated(r, from, to)));
        }
        await files.touch(owner, ancestorsOf(to), newEtag(), now);
        return { replaced: existing !== undefined };
      });
      for (const key of freed) await this.store.delete(key);
      return outcome;
    } catch (err) {
      if (copies) for (const r of copies.rows) if (r.blob) await this.store.delete(r.blob);
      throw err;
    }
  }

  private async copyBlobs(rows: FileRow[]): Promise<{ rows: FileRow[]; bytes: number }> {
    const out: FileRow[] = [];
    let bytes = 0;
    try {
      for (const r of rows) {
        out.push(r.blob ? { ...r, blob: await this.store.copy(r.blob) } : r);
        if (!r.is_dir) bytes += r.size;
      }
    } catch (err) {
      for (const r of out) if (r.blob) await this.store.delete(r.blob);
      throw err;
    }
    return { rows: out, bytes };
  }
}

/**
 * A request body into the blob store, with the answers its failures get: 413 `size` past
 * `limit` (reported as `maxFileSize`), 507 `quota` when the disk is full, 400 `body` when the
 * client's stream broke off (a truncated or aborted upload); nothing is kept in each case.
 */
export function storeStream(
  store: BlobStore,
  data: Readable,
  limit: number,
  maxFileSize: number,
  opts?: { durable?: boolean },
): Promise<{ key: string; size: number }> {
  return storeFailures(() => store.put(data, limit, opts), data, maxFileSize);
}

/** Runs `write` (storing the request body `data`), answering its failures as storeStream says. */
export async function storeFailures<T>(write: () => Promise<T>, data: Readable, maxFileSize: number): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof BlobTooLarge) throw tooLarge(maxFileSize);
    const code = (err as { code?: string }).code;
    if (code === 'ENOSPC' || code === 'EDQUOT') throw insufficientStorage('quota', 'Not enough storage on the server');
    if (data.destroyed || data.readableAborted) throw badRequest('body', 'The upload ended before all its bytes arrived');
    throw err;
  }
}

function folderRow(owner: string, path: string) {
  const parent = parentOf(path);
  return {
    owner,
    path,
    parent: parent ?? null,
    name: baseName(path),
    is_dir: 1,
    size: 0,
    mimetype: FOLDER_MIMETYPE,
    etag: newEtag(),
    mtime: nowSeconds(),
    width: null,
    height: null,
    blob: null,
  };
}

/** A copied row at its new place (new etag; the id is the database's). */
function relocated(r: FileRow, from: string, to: string) {
  const path = to + r.path.slice(from.length);
  const parent = path === to ? parentOf(to)! : to + (r.parent ?? '').slice(from.length);
  const { id: _id, ...rest } = r;
  return { ...rest, path, parent, name: baseName(path), etag: newEtag() };
}

const tooLarge = (max: number) => payloadTooLarge('size', `The file is too large (at most ${max} bytes)`);
const overQuota = () => insufficientStorage('quota', 'Not enough storage: the upload would exceed your quota');
const forbiddenRoot = () => forbidden('root', 'The root folder cannot be moved, copied or deleted');
