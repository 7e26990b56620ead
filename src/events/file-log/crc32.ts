/**
 * CRC-32 (IEEE 802.3, the polynomial of zip and PNG). node:zlib only gained crc32 in Node 22.2,
 * and we support Node 20.19, so it is computed here: slicing-by-4 tables, which keeps checksum
 * cost well below JSON parsing cost when replaying the log.
 */
const TABLES: Uint32Array[] = (() => {
  const tables = Array.from({ length: 4 }, () => new Uint32Array(256));
  const base = tables[0]!;
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    base[n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    let c = base[n]!;
    for (let t = 1; t < 4; t++) {
      c = base[c & 0xff]! ^ (c >>> 8);
      tables[t]![n] = c >>> 0;
    }
  }
  return tables;
})();

export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const [t0, t1, t2, t3] = TABLES as [Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  let crc = 0xffffffff;
  let i = start;
  for (; i + 4 <= end; i += 4) {
    crc ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    crc = t3[crc & 0xff]! ^ t2[(crc >>> 8) & 0xff]! ^ t1[(crc >>> 16) & 0xff]! ^ t0[crc >>> 24]!;
  }
  for (; i < end; i++) crc = t0[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
