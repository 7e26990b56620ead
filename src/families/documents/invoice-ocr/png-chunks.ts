import { crc32 } from 'node:zlib';

const SIGNATURE_BYTES = 8;
/** Length (4), type (4), data, CRC (4). */
const CHUNK_OVERHEAD = 12;

/**
 * Whether a PNG file is whole (PNG, ISO/IEC 15948, section 5): chunk after chunk, each within
 * the file and its CRC-32 right, IHDR first, at least one IDAT, and IEND last. A truncated or
 * damaged upload is found so before the quote, free, instead of failing in the OCR engine after
 * the caller paid. It does not inflate the image data: a well-formed file whose compressed
 * stream is broken still reaches the engine, whose failure the receipt then reports.
 * Returns what is wrong, or undefined.
 */
export function pngChunkProblem(bytes: Uint8Array): string | undefined {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = SIGNATURE_BYTES;
  let index = 0;
  let sawImageData = false;
  while (at < file.length) {
    if (at + CHUNK_OVERHEAD > file.length) return `the file ends inside chunk ${index} (byte ${at}): it is truncated`;
    const length = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    if (!/^[A-Za-z]{4}$/.test(type)) return `chunk ${index} at byte ${at} has no valid type: the file is damaged`;
    const end = at + CHUNK_OVERHEAD + length;
    if (end > file.length) return `the file ends inside its ${type} chunk (byte ${at}): it is truncated`;
    if (crc32(file.subarray(at + 4, at + 8 + length)) !== file.readUInt32BE(at + 8 + length)) return `the CRC of its ${type} chunk at byte ${at} does not match: the file is damaged`;
    if (index === 0 && type !== 'IHDR') return `its first chunk is ${type}, not IHDR`;
    if (type === 'IDAT') sawImageData = true;
    if (type === 'IEND') return sawImageData ? undefined : 'it has no image data (no IDAT chunk)';
    at = end;
    index++;
  }
  return 'the file ends before its IEND chunk: it is truncated';
}
