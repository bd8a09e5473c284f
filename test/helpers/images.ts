/**
 * Real, decodable image fixtures made by the tests: a PNG encoder (zlib + CRC32) and a baseline
 * JPEG encoder for flat grey images (one component, all-zero coefficients, minimal Huffman
 * tables), in any width and height.
 */
import zlib from 'node:zlib';
import sharp from 'sharp';

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** An RGB PNG filled with one colour. */
export function png(width: number, height: number, rgb: [number, number, number] = [200, 40, 90]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function segment(marker: number, data: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([head, data]);
}

/** A baseline greyscale JPEG of mid-grey (every block: DC difference 0, then end-of-block). */
export function jpeg(width: number, height: number): Buffer {
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8);
  // DC code "0" = category 0, AC code "0" = EOB: two zero bits per block, padded with ones.
  const bits = blocks * 2;
  const scan = Buffer.alloc(Math.ceil(bits / 8), 0);
  if (bits % 8) scan[scan.length - 1] |= (1 << (8 - (bits % 8))) - 1;
  const sof = Buffer.from([8, 0, 0, 0, 0, 1, 1, 0x11, 0]);
  sof.writeUInt16BE(height, 1);
  sof.writeUInt16BE(width, 3);
  const huffman = (cls: number) => Buffer.concat([Buffer.from([cls << 4, 1]), Buffer.alloc(15), Buffer.from([0])]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, Buffer.from('JFIF\0\x01\x01\0\0\x01\0\x01\0\0', 'latin1')),
    segment(0xdb, Buffer.concat([Buffer.from([0]), Buffer.alloc(64, 1)])),
    segment(0xc0, sof),
    segment(0xc4, huffman(0)),
    segment(0xc4, huffman(1)),
    segment(0xda, Buffer.from([1, 1, 0x00, 0, 63, 0])),
    scan,
    Buffer.from([0xff, 0xd9]),
  ]);
}

/**
 * A decompression bomb: a `width`×`height` RGBA PNG of zeros. Compressed row by row through a
 * deflate stream, so the test never holds the inflated image (576 MB for 12000×12000).
 */
export async function bombPng(width: number, height: number): Promise<Buffer> {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 6; // truecolour with alpha
  const deflate = zlib.createDeflate({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on('data', (b: Buffer) => parts.push(b));
  const done = new Promise((resolve, reject) => deflate.on('end', resolve).on('error', reject));
  const row = Buffer.alloc(1 + width * 4);
  for (let y = 0; y < height; y++) if (!deflate.write(row)) await new Promise((r) => deflate.once('drain', r));
  deflate.end();
  await done;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', Buffer.concat(parts)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A well-formed PNG (CRCs right, IDAT present) whose header claims `width`×`height` pixels it does not have. */
export function lyingPng(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc(4))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Decoded pixels (RGB) of a PNG or JPEG, read with the same library the server uses. */
export async function decoded(
  data: Buffer,
): Promise<{ width: number; height: number; pixel: (x: number, y: number) => [number, number, number]; count: (rgb: [number, number, number]) => number }> {
  const { data: raw, info } = await sharp(data).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const pixel = (x: number, y: number): [number, number, number] => {
    const at = (y * info.width + x) * info.channels;
    return [raw[at], raw[at + 1], raw[at + 2]];
  };
  const count = (rgb: [number, number, number]) => {
    let n = 0;
    for (let at = 0; at < raw.length; at += info.channels) if (raw[at] === rgb[0] && raw[at + 1] === rgb[1] && raw[at + 2] === rgb[2]) n++;
    return n;
  };
  return { width: info.width, height: info.height, pixel, count };
}
