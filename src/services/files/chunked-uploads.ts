/**
 * Chunked uploads, Nextcloud's chunking v2 (docs/files.md), which the apps use for anything
 * large: MKCOL `/uploads/{user}/{id}` (with the final Destination), PUT of numbered chunks in any
 * order, then MOVE of `{id}/.file` to the destination, whose bytes are the chunks in number
 * order; `OC-Total-Length` must match their sum. Chunks that arrive in order are appended to
 * the upload's assembly, which becomes the file at the MOVE (its bytes written once); any other
 * chunk is a blob of its own. The upload and its chunks are rows, so the next request may reach
 * any process. Unfinished uploads are removed by the
 * file-uploads job after UPLOAD_LIFETIME_SECONDS.
 */
import { Readable } from 'node:stream';
import type { Repositories } from '../../db/repositories/index.js';
import { badRequest, methodNotAllowed, notFound, payloadTooLarge } from '../../domain/errors.js';
import { nowSeconds } from '../../domain/time.js';
import { storeFailures, storeStream, type FilesService, type WriteResult } from './files.js';
import type { BlobStore } from './storage.js';

/** Nextcloud's lifetime of an unfinished upload (its upload cleanup job: 24 hours). */
export const UPLOAD_LIFETIME_SECONDS = 24 * 3600;
/** Nextcloud's chunk numbers. */
const CHUNK_MAX = 10_000;
const UPLOAD_ID = /^[A-Za-z0-9._-]{1,128}$/;

export function uploadIdProblem(id: string): string | null {
  return UPLOAD_ID.test(id) && id !== '.' && id !== '..' ? null : 'upload ids are 1 to 128 letters, digits, ".", "_" or "-"';
}

/** A chunk's number from its name (1 to 10000, leading zeros allowed), or undefined. */
export function chunkNumber(name: string): number | undefined {
  if (!/^\d{1,5}$/.test(name)) return undefined;
  const n = Number(name);
  return n >= 1 && n <= CHUNK_MAX ? n : undefined;
}

export class ChunkedUploadsService {
  constructor(
    private readonly repos: Repositories,
    private readonly store: BlobStore,
    private readonly files: FilesService,
  ) {}

  private async require(owner: string, uploadId: string) {
    const upload = await this.repos.fileUploads.find(owner, uploadId);
    if (!upload) throw notFound('upload', 'No such upload');
    return upload;
  }

  /** MKCOL: 405 `exists` when the id is taken, 400 `upload` for a bad id. */
  async open(owner: string, uploadId: string, destination: string): Promise<void> {
    const problem = uploadIdProblem(uploadId);
    if (problem) throw badRequest('upload', problem);
    if ((await this.repos.fileUploads.open(owner, uploadId, destination, nowSeconds())) === undefined) {
      throw methodNotAllowed('exists', 'An upload with this id exists');
    }
  }

  /** PUT of one chunk: 404 `upload`, 400 `chunk` (not 1–10000), 413 `size` (the chunks together above the file limit). */
  async putChunk(owner: string, uploadId: string, name: string, data: Readable, declared: number | undefined): Promise<void> {
    const upload = await this.require(owner, uploadId);
    const number = chunkNumber(name);
    if (number === undefined) throw badRequest('chunk', `Chunks are numbered 1 to ${CHUNK_MAX}`);
    const { maxFileSize } = await this.files.limits();
    const others = (await this.repos.fileUploads.chunks(upload.id)).filter((c) => c.number !== number).reduce((sum, c) => sum + c.size, 0);
    const room = Math.max(0, maxFileSize - others);
    if (declared !== undefined && declared > room) throw tooLarge(maxFileSize);
    // The next chunk in order goes straight into the upload's assembly, the file it becomes
    // (written once, docs/files.md#for-apps-chunked-uploads); any other is a blob of its own.
    if (await this.appendChunk(upload.id, number, data, room, maxFileSize)) return;
    // Not synced to disk one by one: the file they become is (assemble), which is what a
    // client's 201 for the MOVE promises; a chunk a crash cut short is caught there.
    const blob = await storeStream(this.store, data, room, maxFileSize, { durable: false });
    let replaced: string | undefined;
    try {
      replaced = await this.repos.fileUploads.putChunk({ upload: upload.id, number, blob: blob.key, size: blob.size });
    } catch (err) {
      await this.store.delete(blob.key);
      throw err;
    }
    if (replaced) await this.store.delete(replaced);
  }

  /**
   * Appends chunk `number` to the upload's assembly when it is the next one and nobody else
   * writes the assembly (taken in the database, so any process may receive the chunk): true
   * when it did. Not synced, as chunks are not (assemble checks the size on disk).
   */
  private async appendChunk(upload: number, number: number, data: Readable, room: number, maxFileSize: number): Promise<boolean> {
    const assemblies = this.store.assemblies;
    if (!assemblies) return false;
    const taken = await this.repos.fileUploads.takeForAppend(upload, number, assemblies.newKey(), nowSeconds());
    if (!taken) return false;
    let size: number | undefined;
    try {
      size = await storeFailures(() => assemblies.append(taken.assembly, taken.offset, data, room), data, maxFileSize);
    } catch (err) {
      // Whatever it wrote past the offset is dropped by the next append (or ignored at the MOVE).
      await this.repos.fileUploads.release(upload);
      throw err;
    }
    if (size === undefined) {
      // The assembly lost bytes (a crash of the machine): this chunk is kept on its own; the
      // MOVE tells the client to upload again.
      await this.repos.fileUploads.release(upload);
      return false;
    }
    const replaced = await this.repos.fileUploads.appended(upload, number, taken.offset, size);
    if (replaced === false) {
      // The upload was cancelled or finished while the chunk arrived.
      await assemblies.delete(taken.assembly);
      throw notFound('upload', 'No such upload');
    }
    if (replaced) await this.store.delete(replaced);
    return true;
  }

  /**
   * MOVE of `.file`: the chunks, in number order, become the file at `destination`. 404
   * `upload`, 400 `chunks` (none sent), 400 `length` (OC-Total-Length differs from the chunks'
   * sum); the file write's own refusals (409, 405, 413, 507). The upload is gone afterwards.
   */
  async assemble(owner: string, uploadId: string, destination: string, totalLength: number | undefined): Promise<WriteResult> {
    const upload = await this.require(owner, uploadId);
    const chunks = await this.repos.fileUploads.chunks(upload.id);
    if (chunks.length === 0) throw badRequest('chunks', 'No chunk was uploaded');
    const total = chunks.reduce((sum, c) => sum + c.size, 0);
    if (totalLength !== undefined && totalLength !== total) {
      throw badRequest('length', `The chunks add up to ${total} bytes, OC-Total-Length says ${totalLength}`);
    }
    // A chunk lost or cut short by a crash of the machine (chunks are not synced one by one):
    // the upload cannot become the file; the client uploads again.
    const assemblies = this.store.assemblies;
    const onDisk = upload.assembly !== '' && assemblies ? ((await assemblies.size(upload.assembly)) ?? 0) : 0;
    for (const c of chunks) {
      const whole = c.assembly_offset !== null ? onDisk >= Number(c.assembly_offset) + c.size : (await this.store.stat(c.blob))?.size === c.size;
      if (!whole) throw badRequest('chunks', `Chunk ${c.number} was lost; upload the file again`);
    }
    // Every chunk appended in number order: the assembly becomes the file as it is, unless a
    // PUT still appends to it (then its recorded bytes are copied, as chunks of their own are).
    let next = 0;
    const inOrder =
      assemblies !== undefined &&
      chunks.every((c) => {
        const follows = c.assembly_offset !== null && Number(c.assembly_offset) === next;
        next += c.size;
        return follows;
      });
    if (inOrder && (await this.repos.fileUploads.takeForMove(upload.id, nowSeconds()))) {
      let result: WriteResult;
      try {
        result = await this.files.writeStored(owner, destination, await assemblies.seal(upload.assembly, total));
      } catch (err) {
        await this.repos.fileUploads.release(upload.id);
        throw err;
      }
      await this.removeUploads([upload.id]);
      return result;
    }
    const store = this.store;
    const joined = Readable.from(
      (async function* () {
        for (const c of chunks) {
          if (c.assembly_offset !== null) yield* assemblies!.read(upload.assembly, Number(c.assembly_offset), c.size);
          else yield* store.get(c.blob);
        }
      })(),
    );
    const result = await this.files.write(owner, destination, joined, total);
    await this.removeUploads([upload.id]);
    return result;
  }

  /** DELETE of the upload folder: the chunks are dropped. */
  async cancel(owner: string, uploadId: string): Promise<void> {
    const upload = await this.require(owner, uploadId);
    await this.removeUploads([upload.id]);
  }

  /** The job: uploads opened more than UPLOAD_LIFETIME_SECONDS ago go, with their chunks. */
  async removeStale(now = nowSeconds()): Promise<number> {
    let removed = 0;
    for (;;) {
      const ids = await this.repos.fileUploads.openedBefore(now - UPLOAD_LIFETIME_SECONDS, 100);
      if (ids.length === 0) return removed;
      await this.removeUploads(ids);
      removed += ids.length;
    }
  }

  /** A deleted user's uploads go with them. */
  async forget(owner: string): Promise<void> {
    await this.removeUploads(await this.repos.fileUploads.ofOwner(owner));
  }

  private async removeUploads(ids: number[]): Promise<void> {
    const { blobs, assemblies } = await this.repos.fileUploads.remove(ids);
    for (const key of blobs) await this.store.delete(key);
    for (const key of assemblies) await this.store.assemblies?.delete(key);
  }
}

const tooLarge = (max: number) => payloadTooLarge('size', `The file is too large (at most ${max} bytes)`);
