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
function roomy<T extends Uint8Array | Uint32Array | Float64Array>(chunks: T[], c: number, needed: number, perValue: number, make: (length: number) => T): T {
  const chunk = chunks[c];
  if (chunk && chunk.length >= needed * perValue) return chunk;
  if (c > 0) return (chunks[c] = make(CHUNK * perValue));
  const grown = make(Math.min(CHUNK, Math.max(FIRST_ROOM, 2 * (chunk ? chunk.length / perValue : 0))) * perValue);
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
    const chunk = roomy(this.chunks, c, at + 1, this.width, (n) => new Uint8Array(n));
    chunk.set(value, at * this.width);
    this.count++;
  }

  /** Whether the value at `index` is `value`, without making a view. */
  equalsAt(index: number, value: Uint8Array): boolean {
    const bytes = this.chunks[index >>> CHUNK_BITS]!;
    const base = (index & IN_CHUNK) * this.width;
    for (let i = 0; i < this.width; i++) if (bytes[base + i] !== value[i]) return false;
    return true;
  }

  /** A view, valid until the next push: copy it to keep it. */
  at(index: number): Uint8Array {
    if (!Number.isInteger(index) || index < 0 || index >= this.count) throw new RangeError(`index ${index} outside a column of ${this.count}`);
    const base = (index & IN_CHUNK) * this.width;
    return this.chunks[index >>> CHUNK_BITS]!.subarray(base, base + this.width);
  }
}

/**
 * A growable column of unsigned integers in the same chunks, each in `bytesPerValue` bytes: 4
 * (below 2^32) or 8 (below 2^53, as a float64 holds them exactly).
 */
export class IntegerColumn {
  private readonly chunks: Array<Uint32Array | Float64Array> = [];
  private count = 0;
  /** The first integer a value cannot be. */
  private readonly limit: number;

  constructor(private readonly bytesPerValue: 4 | 8) {
    this.limit = bytesPerValue === 4 ? 2 ** 32 : Number.MAX_SAFE_INTEGER + 1;
  }

  get length(): number {
    return this.count;
  }

  push(value: number): void {
    if (!Number.isInteger(value) || value < 0 || value >= this.limit) throw new RangeError(`${value} is no integer a column of ${this.bytesPerValue}-byte values holds`);
    const c = this.count >>> CHUNK_BITS;
    const at = this.count & IN_CHUNK;
    const chunk = roomy(this.chunks, c, at + 1, 1, (n) => (this.bytesPerValue === 4 ? new Uint32Array(n) : new Float64Array(n)));
    chunk[at] = value;
    this.count++;
  }

  at(index: number): number {
    if (!Number.isInteger(index) || index < 0 || index >= this.count) throw new RangeError(`index ${index} outside a column of ${this.count}`);
    return this.chunks[index >>> CHUNK_BITS]![index & IN_CHUNK]!;
  }
}
