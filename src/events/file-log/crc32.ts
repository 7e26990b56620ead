import { crc32 as zlibCrc32 } from 'node:zlib';

/**
 * CRC-32 (IEEE 802.3, the polynomial of zip and PNG) of `bytes[start, end)`.
 * node:zlib has it natively since Node 20.15 and 22.2 (we require 20.19): zlib's implementation
 * is several times faster than a table-driven one in JS (about 0.6 µs per KiB against 2.3 µs
 * for slicing-by-4), and the checksum is on the path of every append and every replayed event.
 */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  return zlibCrc32(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end));
}
