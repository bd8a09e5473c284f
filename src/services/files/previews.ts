/**
 * Image previews as Nextcloud's `/core/preview` makes them (server core PreviewController):
 * the file scaled to fit `x`×`y` (`a=1`, keeping the aspect ratio) or cropped to fill it
 * (`a=0`), never enlarged, made with sharp (libvips). Only for images whose header stays within
 * the pixel limit (a decompression bomb has no preview); made on request, not stored.
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

/** The largest preview side Parley makes (Nextcloud's default preview_max_x/y is 4096; apps ask for far less). */
export const PREVIEW_MAX_SIDE = 2048;

export interface Preview {
  data: Buffer;
  contentType: 'image/png' | 'image/jpeg';
  etag: string;
}

export class PreviewService {
  constructor(
    private readonly repos: Repositories,
    private readonly store: BlobStore,
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
    try {
      const pipeline = sharp(this.store.localPath(row.blob), { limitInputPixels: IMAGE_MAX_PIXELS, failOn: 'truncated' })
        .rotate()
        .resize({ width, height, fit: keepAspect ? 'inside' : 'cover', withoutEnlargement: true });
      const data = await (jpeg ? pipeline.jpeg({ quality: 85 }) : pipeline.png()).toBuffer();
      return { data, contentType: jpeg ? 'image/jpeg' : 'image/png', etag: `"${row.etag}-${width}-${height}-${keepAspect ? 1 : 0}"` };
    } catch {
      throw notFound('preview', 'No preview: the image does not decode');
    }
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
