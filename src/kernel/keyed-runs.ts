/**
 * Fixed-size entries, a key of `keyWords` 32-bit words then `valueWords` words, kept in sorted
 * runs: what a state keeps, 4 bytes a word, of the many items it no longer holds whole (the
 * spend governor's old decisions, the places of old records). Immutable, as a state is: adding
 * makes new runs sharing the old ones. A run is merged into the one before it while that one is
 * not at least twice its size, so n entries lie in at most log2(n) runs and each is copied about
 * log2(n) times.
 */
export interface RunShape {
  keyWords: number;
  valueWords: number;
}

type Run = Uint32Array;

export class KeyedRuns {
  private constructor(
    readonly shape: RunShape,
    private readonly runs: readonly Run[],
  ) {}

  static empty(shape: RunShape): KeyedRuns {
    return new KeyedRuns(shape, []);
  }

  /**
   * The runs whose entries `bytesInOrder` yielded: a snapshot's. Throws on a chunk that is not
   * whole entries, and on entries out of key order or repeated.
   */
  static ofBytes(shape: RunShape, chunks: Iterable<Uint8Array>): KeyedRuns {
    const width = widthOf(shape);
    const parts = [...chunks].map((chunk) => {
      if (chunk.byteLength % (width * 4) !== 0) throw new Error(`keyed runs: ${chunk.byteLength} bytes are not a whole number of ${width * 4}-byte entries`);
      return wordsFromBigEndian(chunk);
    });
    const run = new Uint32Array(parts.reduce((sum, part) => sum + part.length, 0));
    parts.reduce((at, part) => (run.set(part, at), at + part.length), 0);
    for (let at = width; at < run.length; at += width) {
      if (compareKeys(shape, run, at - width, run, at) >= 0) throw new Error('keyed runs: entries out of order or repeated');
    }
    return new KeyedRuns(shape, run.length === 0 ? [] : [run]);
  }

  get size(): number {
    return this.runs.reduce((sum, run) => sum + run.length / widthOf(this.shape), 0);
  }

  /** Whether no entry was added: what a lookup on the hot path asks first. */
  get isEmpty(): boolean {
    return this.runs.length === 0;
  }

  /** The value words of the entry whose key is `key` (keyWords words), if any. */
  find(key: ArrayLike<number>): Uint32Array | undefined {
    const width = widthOf(this.shape);
    for (const run of this.runs) {
      const at = search(this.shape, run, key, 0);
      if (at >= 0) return run.subarray(at + this.shape.keyWords, at + width);
    }
    return undefined;
  }

  /** Whether the key at `words[from]` is present. */
  private has(words: Uint32Array, from: number): boolean {
    return this.runs.some((run) => search(this.shape, run, words, from) >= 0);
  }

  /**
   * These runs with `entries` added (whole entries, key then value words, in any order). A key
   * present already, or twice in `entries`, is a fault of the caller: it throws, and nothing is
   * added.
   */
  with(entries: Uint32Array): KeyedRuns {
    return this.added(entries, 'refuse');
  }

  /** These runs with those of `entries` whose key is not present yet added (of a key twice in `entries`, the first). */
  withAbsent(entries: Uint32Array): KeyedRuns {
    return this.added(entries, 'skip');
  }

  private added(entries: Uint32Array, present: 'refuse' | 'skip'): KeyedRuns {
    const width = widthOf(this.shape);
    if (entries.length % width !== 0) throw new Error(`keyed runs: ${entries.length} words are not whole entries of ${width}`);
    const all = sorted(this.shape, entries);
    const kept = new Uint32Array(all.length);
    let end = 0;
    for (let at = 0; at < all.length; at += width) {
      if ((at > 0 && compareKeys(this.shape, all, at - width, all, at) === 0) || this.has(all, at)) {
        if (present === 'refuse') throw new Error(`keyed runs: key ${hexOf(all.subarray(at, at + this.shape.keyWords))} added twice`);
        continue;
      }
      for (let w = 0; w < width; w++) kept[end + w] = all[at + w]!;
      end += width;
    }
    if (end === 0) return this;
    const run = end === all.length ? kept : kept.slice(0, end);
    const runs = [...this.runs, run];
    while (runs.length > 1 && runs[runs.length - 2]!.length < 2 * runs[runs.length - 1]!.length) {
      const last = runs.pop()!;
      runs.push(merged(this.shape, runs.pop()!, last));
    }
    return new KeyedRuns(this.shape, runs);
  }

  /** The entries in key order, `perChunk` a chunk, as bytes: each word big-endian. */
  *bytesInOrder(perChunk: number): Generator<Buffer> {
    const width = widthOf(this.shape);
    const all = this.runs.reduce<Run>((into, run) => merged(this.shape, into, run), new Uint32Array(0));
    for (let from = 0; from < all.length; from += perChunk * width) yield bigEndianBytesOf(all.subarray(from, Math.min(all.length, from + perChunk * width)));
  }
}

/** 32-bit words as big-endian bytes: how runs, and what states keep beside them, go into a snapshot. */
export function bigEndianBytesOf(words: Uint32Array): Buffer {
  const bytes = Buffer.alloc(words.length * 4);
  words.forEach((word, i) => bytes.writeUInt32BE(word, i * 4));
  return bytes;
}

/** bigEndianBytesOf read back; throws on bytes that are not whole words. */
export function wordsFromBigEndian(bytes: Uint8Array): Uint32Array {
  if (bytes.byteLength % 4 !== 0) throw new Error(`${bytes.byteLength} bytes are not whole 32-bit words`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Uint32Array.from({ length: bytes.byteLength / 4 }, (_, i) => view.getUint32(i * 4));
}

/** The words of a key given as hex, 8 digits a word (the first `words` words of a longer digest). */
export function keyWordsOfHex(hex: string, words: number): Uint32Array {
  if (hex.length < words * 8) throw new Error(`key ${hex}: at least ${words * 8} hex digits expected`);
  const key = new Uint32Array(words);
  for (let i = 0; i < words; i++) {
    const word = Number(`0x${hex.slice(i * 8, i * 8 + 8)}`);
    if (!Number.isInteger(word)) throw new Error(`key ${hex}: not hex`);
    key[i] = word;
  }
  return key;
}

const widthOf = (shape: RunShape): number => shape.keyWords + shape.valueWords;

const hexOf = (key: ArrayLike<number>): string => Array.from(key, (word) => word.toString(16).padStart(8, '0')).join('');

function compareKeys(shape: RunShape, a: Run, i: number, b: ArrayLike<number>, j: number): number {
  for (let w = 0; w < shape.keyWords; w++) {
    const order = a[i + w]! - b[j + w]!;
    if (order !== 0) return order;
  }
  return 0;
}

/** The word offset of the entry whose key is the one at `key[from]` in a sorted run, or -1. */
function search(shape: RunShape, run: Run, key: ArrayLike<number>, from: number): number {
  const width = widthOf(shape);
  let lo = 0;
  let hi = run.length / width - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const order = compareKeys(shape, run, mid * width, key, from);
    if (order === 0) return mid * width;
    if (order < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function sorted(shape: RunShape, entries: Uint32Array): Run {
  const width = widthOf(shape);
  const order = Array.from({ length: entries.length / width }, (_, i) => i * width).sort((i, j) => compareKeys(shape, entries, i, entries, j));
  const out = new Uint32Array(entries.length);
  order.forEach((from, i) => {
    for (let w = 0; w < width; w++) out[i * width + w] = entries[from + w]!;
  });
  return out;
}

function merged(shape: RunShape, a: Run, b: Run): Run {
  const width = widthOf(shape);
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let o = 0;
  while (i < a.length && j < b.length) {
    if (compareKeys(shape, a, i, b, j) <= 0) {
      for (let w = 0; w < width; w++) out[o + w] = a[i + w]!;
      i += width;
    } else {
      for (let w = 0; w < width; w++) out[o + w] = b[j + w]!;
      j += width;
    }
    o += width;
  }
  out.set(a.subarray(i), o);
  out.set(b.subarray(j), o + a.length - i);
  return out;
}
