/**
 * Image checks for conversation avatars (contract "Avatar": PNG or JPEG, square), from the bytes
 * and never from the file name or the declared type: magic numbers, then the dimensions in the
 * header (PNG IHDR, JPEG SOFn) and the structure around them (PNG chunk CRCs up to IEND, JPEG
 * segments up to the scan and the end marker).
 */
import zlib from 'node:zlib';

export type ImageKind = 'png' | 'jpeg';

export interface ImageInfo {
  kind: ImageKind;
  contentType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
}

/**
 * The most pixels Parley decodes from an uploaded image: 8192 × 8192, which at four bytes a pixel
 * is the 256 MB Nextcloud allows its preview generator by default (`preview_max_memory`).
 */
export const IMAGE_MAX_PIXELS = 8192 * 8192;

/** Why bytes are not an acceptable image: not PNG/JPEG at all, or a broken one. */
export type ImageProblem = 'mimetype' | 'image';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function sniffKind(data: Buffer): ImageKind | undefined {
  if (data.length >= 8 && data.subarray(0, 8).equals(PNG_SIGNATURE)) return 'png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'jpeg';
  return undefined;
}

/** PNG: IHDR first (13 bytes, non-zero size), every chunk's CRC right, ending with IEND. */
function pngInfo(data: Buffer): ImageInfo | undefined {
  let at = 8;
  let width = 0;
  let height = 0;
  let first = true;
  let sawData = false;
  while (at + 12 <= data.length) {
    const length = data.readUInt32BE(at);
    const type = data.toString('latin1', at + 4, at + 8);
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > data.length) return undefined;
    const crc = data.readUInt32BE(end - 4);
    if (zlib.crc32(data.subarray(at + 4, end - 4)) !== crc) return undefined;
    if (first) {
      if (type !== 'IHDR' || length !== 13) return undefined;
      width = data.readUInt32BE(at + 8);
      height = data.readUInt32BE(at + 12);
      first = false;
    }
    if (type === 'IDAT') sawData = true;
    if (type === 'IEND') return width > 0 && height > 0 && sawData ? { kind: 'png', contentType: 'image/png', width, height } : undefined;
    at = end;
  }
  return undefined;
}

/** SOFn markers carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but do not. */
const isSof = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

/** JPEG: segments from SOI to the first scan, a frame header with a non-zero size, and EOI. */
function jpegInfo(data: Buffer): ImageInfo | undefined {
  let at = 2;
  let width = 0;
  let height = 0;
  while (at + 4 <= data.length) {
    if (data[at] !== 0xff) return undefined;
    let marker = data[at + 1];
    // Fill bytes (0xFF) may precede a marker.
    while (marker === 0xff && at + 2 < data.length) marker = data[++at + 1];
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd8 || marker === 0xd9) return undefined;
    const length = data.readUInt16BE(at + 2);
    if (length < 2 || at + 2 + length > data.length) return undefined;
    if (isSof(marker)) {
      if (length < 7) return undefined;
      height = data.readUInt16BE(at + 5);
      width = data.readUInt16BE(at + 7);
    }
    if (marker === 0xda) {
      // Entropy-coded data follows; the image must still end with EOI.
      const eoi = data.lastIndexOf(Buffer.from([0xff, 0xd9]));
      if (width === 0 || height === 0 || eoi < at + 2 + length) return undefined;
      return { kind: 'jpeg', contentType: 'image/jpeg', width, height };
    }
    at += 2 + length;
  }
  return undefined;
}

/** The image's kind and size, or the reason it is refused. */
export function inspectImage(data: Buffer): ImageInfo | ImageProblem {
  const kind = sniffKind(data);
  if (!kind) return 'mimetype';
  return (kind === 'png' ? pngInfo(data) : jpegInfo(data)) ?? 'image';
}
