/**
 * Values per chunk. A column is a list of chunks of CHUNK values, except its first, which grows
 * (doubling, from FIRST_ROOM values) until it holds CHUNK: a long column holds at most one
 * chunk's worth of room unused and copies nothing once past its first chunk, and a short one (a
 * high level of a tree) stays small.
 */
const CHUNK_BITS = 16;
const CHUNK = 1 << CHUNK_BITS;
const IN_CHUNK = CHUNK - 1;
const FIRST_ROOM = 64;

/** Chunk `c` with room for `needed` values: as it is, new, or (the first chunk) twice its size. */
function roomy(chunks: Uint8Array[], c: number, needed: number, perValue: number): Uint8Array {
  const chunk = chunks[c];
  if (chunk && chunk.length >= needed * perValue) return chunk;
  if (c > 0) return (chunks[c] = new Uint8Array(CHUNK * perValue));
  const grown = new Uint8Array(Math.min(CHUNK, Math.max(FIRST_ROOM, 2 * (chunk ? chunk.length / perValue : 0))) * perValue);
  if (chunk) grown.set(chunk);
  return (chunks[0] = grown);
}

/**
 * A growable column of fixed-width byte strings, in chunks: a million 32-byte hashes cost 32 MB,
 * not a million Buffer objects, and growing it does not double its room (a column grown by
 * doubling held 1.75 times its values at 300,000 of them).
 */
export class ByteColumn {
  private readonly chunks: Uint8Array[] = [];
  private count = 0;

  constructor(readonly width: number) {}

  get length(): number {
    return this.count;
  }

  push(value: Uint8Array): void {
    if (value.length !== this.width) throw new RangeError(`expected ${this.width} bytes, got ${value.length}`);
    const c = this.count >>> CHUNK_BITS;
    const at = this.count & IN_CHUNK;
    const chunk = roomy(this.chunks, c, at + 1, this.width);
    chunk.set(value, at * this.width);
    this.count++;
  }

  /** A view, valid until the next push: copy it to keep it. */
  at(index: number): Uint8Array {
    if (!Number.isInteger(index) || index < 0 || index >= this.count) throw new RangeError(`index ${index} outside a column of ${this.count}`);
    const base = (index & IN_CHUNK) * this.width;
    return this.chunks[index >>> CHUNK_BITS]!.subarray(base, base + this.width);
  }
}
