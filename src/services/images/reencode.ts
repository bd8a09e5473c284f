/**
 * Uploaded images are decoded by libvips (through sharp) and re-encoded before anything stores
 * them: a header alone proves nothing (a 68-byte PNG can claim 2³¹ pixels a side, a 420 KB one
 * can inflate to 576 MB), and re-encoding drops whatever else the file carried (metadata,
 * trailing data). The pixel limit is checked on the header first, so a decompression bomb is
 * refused before a single row is inflated; libvips enforces it again while decoding.
 * See docs/security.md ("Image limits").
 */
import sharp from 'sharp';
import { badRequest } from '../../domain/errors.js';
import { IMAGE_MAX_PIXELS, type ImageInfo } from '../../domain/images.js';

// libvips' operation cache would keep decoded images alive across requests; every image here is
// seen once.
sharp.cache(false);

export interface EncodedImage {
  data: Buffer;
  contentType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
}

/** 400 `image` when an image's header claims more pixels than Parley decodes. */
export function assertPixelLimit(width: number, height: number): void {
  if (width * height > IMAGE_MAX_PIXELS) {
    throw badRequest('image', `The image is too large (${width}×${height}; at most ${IMAGE_MAX_PIXELS} pixels)`);
  }
}

/**
 * Decodes `data` (already sniffed as `info`) and re-encodes it in the same format, scaled down to
 * fit `maxSide` × `maxSide` (never up). 400 `image` when it is over the pixel limit or does not
 * decode in full (truncated or corrupt data).
 */
export async function reencodeImage(data: Buffer, info: ImageInfo, maxSide: number): Promise<EncodedImage> {
  assertPixelLimit(info.width, info.height);
  try {
    const pipeline = sharp(data, { limitInputPixels: IMAGE_MAX_PIXELS, failOn: 'truncated', sequentialRead: true })
      .rotate()
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true });
    const out =
      info.kind === 'png'
        ? await pipeline.png({ compressionLevel: 9 }).toBuffer({ resolveWithObject: true })
        : await pipeline.jpeg({ quality: 90 }).toBuffer({ resolveWithObject: true });
    return { data: out.data, contentType: info.contentType, width: out.info.width, height: out.info.height };
  } catch {
    throw badRequest('image', 'The file is not a valid image');
  }
}
