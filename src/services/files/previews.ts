/**
 * Image previews as Nextcloud's `/core/preview` makes them (server core PreviewController):
 * the file scaled to fit `x`×`y` (`a=1`, keeping the aspect ratio) or cropped to fill it
 * (`a=0`), never enlarged, made with sharp (libvips). Only for images whose header stays within
 * the pixel limit (a decompression bomb has no preview); made on the first request for a size
 * and kept in the disk cache (preview-cache.ts) for the next ones.
 * Who may see a preview: the file's owner, and the users of a conversation it is shared into
 * (docs/reference/files.md#previews).
 */
import { encode } from 'blurhash';
import sharp from 'sharp';
import type { FileRow } from '../../db/repositories/files.js';
import type { Repositories } from '../../db/repositories/index.js';
import { notFound } from '../../domain/errors.js';
import { ancestorsOf, hasPreview } from '../../domain/files/paths.js';
import { IMAGE_MAX_PIXELS } from '../../domain/images.js';
import { nowSeconds } from '../../domain/time.js';
import type { BlobStore } from './storage.js';
import type { PreviewCache } from './preview-cache.js';
import type { AppConfigService } from '../platform/app-config.js';
import { Counter } from '../../domain/openmetrics.js';

/** The largest preview side Parley makes (Nextcloud's default preview_max_x/y is 4096; apps ask for far less). */
export const PREVIEW_MAX_SIDE = 2048;

export interface Preview {
  data: Buffer;
  contentType: 'image/png' | 'image/jpeg';
  etag: string;
}

export class PreviewService {
  /** Previews answered, by where they came from: `made` (decoded with sharp) or `cache` (/metrics). */
  readonly answered = new Counter('parley_file_previews', 'Image previews answered, by source: made (decoded) or cache (from disk)');

  constructor(
    private readonly repos: Repositories,
    private readonly store: BlobStore,
    private readonly cache: PreviewCache,
    private readonly appConfig: AppConfigService,
  ) {}

  /** 404 `file` (missing, a folder, neither own nor shared with the user), 404 `preview` (no preview for its type or size). */
  async preview(userId: string, fileId: number, x: number, y: number, keepAspect: boolean): Promise<Preview> {
    const row = await this.repos.files.findById(fileId);
    if (!row || row.is_dir || !row.blob) throw notFound('file', 'File not found');
    if (row.owner !== userId && !(await this.readable(userId, row))) throw notFound('file', 'File not found');
    return this.render(row, x, y, keepAspect);
  }

  /** Whether `userId` may read another user's file: shared with them, or inside a folder shared with them. */
  private async readable(userId: string, row: FileRow): Promise<boolean> {
    const paths = [...ancestorsOf(row.path).filter((p) => p !== ''), row.path];
    return (await this.repos.fileShares.covering(userId, row.owner, paths, nowSeconds(), 1)).length > 0;
  }

  /** The preview of a file whose reader was already checked (a public link's). */
  async render(row: FileRow, x: number, y: number, keepAspect: boolean): Promise<Preview> {
    if (row.is_dir || !row.blob) throw notFound('file', 'File not found');
    if ((row.width ?? 0) * (row.height ?? 0) > IMAGE_MAX_PIXELS) throw notFound('preview', 'No preview: the image is too large');
    if (!hasPreview(row)) throw notFound('preview', 'No preview for this file');
    const width = Math.min(x, PREVIEW_MAX_SIDE);
    const height = Math.min(y, PREVIEW_MAX_SIDE);
    const jpeg = row.mimetype === 'image/jpeg';
    const contentType = jpeg ? 'image/jpeg' : 'image/png';
    const etag = `"${row.etag}-${width}-${height}-${keepAspect ? 1 : 0}"`;
    const key = { fileId: row.id, etag: row.etag, width, height, keepAspect, ext: jpeg ? 'jpg' : 'png' } as const;
    const limit = (await this.appConfig.snapshot()).int('files_preview_cache_size');
    const cached = limit > 0 ? await this.cache.get(key) : undefined;
    if (cached) {
      this.answered.inc({ source: 'cache' });
      return { data: cached, contentType, etag };
    }
    let data: Buffer;
    try {
      const pipeline = sharp(this.store.localPath(row.blob), { limitInputPixels: IMAGE_MAX_PIXELS, failOn: 'truncated' })
        .rotate()
        .resize({ width, height, fit: keepAspect ? 'inside' : 'cover', withoutEnlargement: true });
      data = await (jpeg ? pipeline.jpeg({ quality: 85 }) : pipeline.png()).toBuffer();
    } catch {
      throw notFound('preview', 'No preview: the image does not decode');
    }
    this.answered.inc({ source: 'made' });
    await this.cache.put(key, data, limit);
    return { data, contentType, etag };
  }

  /**
   * The blurhash of an image with a preview (Nextcloud's metadata `blurhash`, which Talk's
   * `{file}` object carries; docs/reference/files.md#the-file-rich-object): 4×3 components of
   * the picture scaled to at most 64 pixels a side. Undefined for anything else.
   */
  async blurhash(row: FileRow): Promise<string | undefined> {
    if (!row.blob || !hasPreview(row)) return undefined;
    try {
      const { data, info } = await sharp(this.store.localPath(row.blob), { limitInputPixels: IMAGE_MAX_PIXELS, failOn: 'truncated' })
        .rotate()
        .resize({ width: 64, height: 64, fit: 'inside' })
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      return encode(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height, 4, 3);
    } catch {
      return undefined;
    }
  }
}
