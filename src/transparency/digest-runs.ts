import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * An entry: the digest's first 8 bytes (its lookup key), then the leaf (u32, big-endian). So runs
 * hold the first 2^32 leaves (4.3 billion results, an event log of about 13 billion events); a
 * larger log needs a format with wider leaf numbers: past it writing a run throws, the store says so
 * (LeafStore.commitTail), and the leaves after it stay listed in memory.
 */
const ENTRY_BYTES = 12;
/**
 * A digest's lookup key: its first 8 bytes. The leaves of distinct digests under one key (a rare
 * collision) are told apart by their whole digest, read from the leaf.
 */
export const DIGEST_KEY_BYTES = 8;
/** Entries read together: a lookup reads one or two such blocks of a run, found by its fences. */
const BLOCK_ENTRIES = 512;
/** After the entries: each block's first prefix (the fences), then count, block size and the magic. */
const FOOTER_BYTES = 12;
const MAGIC = 0x4452_4e31; // "DRN1"
/**
 * Runs of one size are merged this many at a time into one run as large as they are together, at
 * every size: so at most three runs of each size wait, and a lookup reads about three runs for
 * every fourfold growth of the log (about 20 at 100 million leaves).
 */
const MERGE_FAN_IN = 4;
/**
 * Entries a merge reads from each run, and writes, at a time: its memory (about 0.5 MB), besides
 * the merged run's fences (8 bytes for 512 entries, as every open run keeps).
 */
const DEFAULT_CHUNK_ENTRIES = 8_192;
/** Entries merged in one turn of the event loop (about a millisecond), so that a merge never holds it. */
const MERGE_ENTRIES_A_TURN = 16_384;
/** Leaves a run is written for, by default: about 1.4 s of paid calls at 3,000 a second. */
export const DEFAULT_RUN_LEAVES = 4_096;

interface Run {
  from: number;
  to: number;
  count: number;
  fd: number;
  file: string;
  /** The first prefix of each block, 8 bytes a block. */
  fences: Buffer;
}

/** A leaf and its digest (of which the first 8 bytes are its lookup key). */
export interface DigestEntry {
  digest: Uint8Array;
  leaf: number;
}

/** An entry of a run as an audit reads it: the key's two big-endian words, and the leaf. */
export interface DigestRunEntry {
  high: number;
  low: number;
  leaf: number;
}

const runName = (from: number, to: number): string => `run-${String(from).padStart(12, '0')}-${String(to).padStart(12, '0')}`;
const RUN_NAME = /^run-(\d{12})-(\d{12})$/;

/**
 * The result log's lookup from a result's digest to its leaves, as sorted runs of entries in files
 * (a log-structured merge): a run holds the entries of a range of leaves, sorted by prefix and
 * leaf; runs of one size are merged four at a time, in the background, into one four times as
 * large. So an entry is written about once a level, always in sequence, where a B-tree keyed by
 * the digest (the LMDB table before) rewrote a page of 4 KiB for each, since digests are random
 * (docs/benchmarks.md, the result log). A lookup reads a block or two of each run, found by the
 * run's fences (each block's first prefix, kept in memory: 8 bytes for 512 leaves).
 *
 * The runs tile the leaves from 0 to `indexedTo` without overlap; files outside the tiling (the
 * runs a merge replaced, should the process stop before it removed them) are removed at open. A
 * run is written whole to a temporary file and renamed: a file is there whole or not at all. The
 * runs are a function of the leaves' digests, so whatever is lost its owner makes again from the
 * leaves' file (LeafStore).
 */
export class DigestRuns {
  private runs: Run[];
  private merging: Promise<void> | undefined;
  /** Bumped by clear and cutTo: a merge begun before either is discarded. */
  private generation = 0;
  private closed = false;
  /** The last merge failed: the next is tried once another run is added. */
  private mergeFailed = false;

  private constructor(
    private readonly dir: string,
    private readonly readOnly: boolean,
    readonly runLeaves: number,
    private readonly chunkEntries: number,
    runs: Run[],
  ) {
    this.runs = runs;
  }

  /** `chunkEntries`: what a merge or an audit reads at a time (for tests: small, so that they read many). */
  static open(dir: string, options: { readOnly: boolean; runLeaves?: number; chunkEntries?: number }): DigestRuns {
    if (!options.readOnly) mkdirSync(dir, { recursive: true });
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (err) {
      if (options.readOnly && (err as NodeJS.ErrnoException).code === 'ENOENT') names = [];
      else throw err;
    }
    const found: Array<{ from: number; to: number; file: string }> = [];
    for (const name of names) {
      const m = RUN_NAME.exec(name);
      if (m && Number(m[2]) > Number(m[1])) found.push({ from: Number(m[1]), to: Number(m[2]), file: join(dir, name) });
      else if (!options.readOnly) rmSync(join(dir, name), { force: true });
    }
    // From leaf 0 on, the longest run that starts where the last ended: a merge's run over the ones it replaced.
    found.sort((a, b) => a.from - b.from || b.to - a.to);
    const runs: Run[] = [];
    let at = 0;
    for (const candidate of found) {
      const run = candidate.from === at ? openRun(candidate.file, candidate.from, candidate.to) : undefined;
      if (run) {
        runs.push(run);
        at = run.to;
      } else if (!options.readOnly) rmSync(candidate.file, { force: true });
    }
    return new DigestRuns(dir, options.readOnly, options.runLeaves ?? DEFAULT_RUN_LEAVES, options.chunkEntries ?? DEFAULT_CHUNK_ENTRIES, runs);
  }

  /** Leaves 0 .. indexedTo-1 are in runs. */
  get indexedTo(): number {
    return this.runs.at(-1)?.to ?? 0;
  }

  /** The leaves whose digest starts with `prefix` (its first 8 bytes), in increasing order. */
  *leavesUnder(prefix: Uint8Array): Generator<number> {
    const key = Buffer.from(prefix.buffer, prefix.byteOffset, DIGEST_KEY_BYTES);
    const block = Buffer.allocUnsafe(BLOCK_ENTRIES * ENTRY_BYTES);
    for (const run of this.runs.slice()) yield* leavesIn(run, key, block);
  }

  /** The leaf ranges of the runs, oldest first: they tile the leaves from 0 to `indexedTo`. */
  get ranges(): Array<{ from: number; to: number }> {
    return this.runs.map(({ from, to }) => ({ from, to }));
  }

  /**
   * The entries of the run of leaves `from` .. to-1, for an audit, read a chunk at a time: each
   * entry's key (the digest's first 8 bytes as two big-endian words) and leaf, in the file's
   * order. Throws, saying what, when the entries are not sorted or the fences are not their
   * blocks' first keys, since a lookup relies on both.
   */
  *entriesOf(from: number): Generator<DigestRunEntry> {
    const run = this.runs.find((r) => r.from === from);
    if (!run) throw new RangeError(`no digest run starts at leaf ${from}`);
    const name = `the digest run of leaves ${run.from} to ${run.to}`;
    // Read a chunk of whole blocks at a time; the entry before a chunk is kept to check the order across it.
    const chunkEntries = Math.ceil(this.chunkEntries / BLOCK_ENTRIES) * BLOCK_ENTRIES;
    const bytes = Buffer.allocUnsafe(chunkEntries * ENTRY_BYTES + ENTRY_BYTES);
    for (let first = 0; first < run.count; first += chunkEntries) {
      const entries = Math.min(chunkEntries, run.count - first);
      if (first > 0) bytes.copy(bytes, 0, chunkEntries * ENTRY_BYTES, chunkEntries * ENTRY_BYTES + ENTRY_BYTES);
      const length = entries * ENTRY_BYTES;
      if (readSync(run.fd, bytes, ENTRY_BYTES, length, first * ENTRY_BYTES) !== length) throw new Error(`${name} is shorter than it says`);
      for (let e = 0; e < entries; e++) {
        const at = ENTRY_BYTES + e * ENTRY_BYTES;
        const entry = first + e;
        if (entry % BLOCK_ENTRIES === 0 && bytes.compare(run.fences, (entry / BLOCK_ENTRIES) * DIGEST_KEY_BYTES, (entry / BLOCK_ENTRIES + 1) * DIGEST_KEY_BYTES, at, at + DIGEST_KEY_BYTES) !== 0)
          throw new Error(`${name}: the fence of block ${entry / BLOCK_ENTRIES} is not its first key`);
        if (entry > 0 && compareEntries(bytes, at - ENTRY_BYTES, bytes, at) >= 0) throw new Error(`${name}: entry ${entry} is not after the one before it`);
        yield { high: bytes.readUInt32BE(at), low: bytes.readUInt32BE(at + 4), leaf: bytes.readUInt32BE(at + DIGEST_KEY_BYTES) };
      }
    }
  }

  /** Writes the run of leaves `from` .. to-1 (`from` is indexedTo), then merges runs in the background if four are of one size. */
  add(from: number, to: number, entries: DigestEntry[]): void {
    if (this.readOnly) throw new Error('the digest runs are open for reading only');
    if (from !== this.indexedTo || to <= from) throw new RangeError(`a run of leaves ${from} to ${to} does not follow the runs, which end at ${this.indexedTo}`);
    this.runs.push(writeRun(this.dir, from, to, runBytes(entries)));
    this.mergeFailed = false;
    this.mergeWhenDue();
  }

  /** Drops the runs of leaves from `leaves` on (the store was cut back to its last commit). */
  cutTo(leaves: number): void {
    if (this.indexedTo <= leaves) return;
    this.generation++;
    const keep = this.runs.filter((run) => run.to <= leaves);
    for (const run of this.runs.slice(keep.length)) removeRun(run);
    this.runs = keep;
  }

  clear(): void {
    this.cutTo(0);
  }

  /** Resolves once no merge is under way. */
  async settled(): Promise<void> {
    while (this.merging) await this.merging;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
    for (const run of this.runs) closeSync(run.fd);
    this.runs = [];
  }

  /**
   * Merges the oldest four consecutive runs of one size, if there are: the oldest first, so that
   * runs written faster than they are merged (a store folded again at a start) are all merged in
   * the end, the sizes falling from the oldest run to the newest.
   */
  private mergeWhenDue(): void {
    if (this.merging || this.closed || this.mergeFailed) return;
    const sizeOf = (run: Run) => run.to - run.from;
    for (let i = 0; i + MERGE_FAN_IN <= this.runs.length; i++) {
      const group = this.runs.slice(i, i + MERGE_FAN_IN);
      const size = sizeOf(group[0]!);
      if (group.some((run) => sizeOf(run) !== size)) continue;
      this.merging = this.merge(group).finally(() => {
        this.merging = undefined;
        this.mergeWhenDue();
      });
      return;
    }
  }

  /**
   * Merges consecutive runs into one, then swaps them for it: read and written a chunk at a time
   * off the event loop, merged a slice a turn, so that neither its memory nor its hold on the
   * event loop grows with the runs' size.
   */
  private async merge(parts: Run[]): Promise<void> {
    const generation = this.generation;
    const overtaken = () => generation !== this.generation || this.closed;
    const from = parts[0]!.from;
    const to = parts.at(-1)!.to;
    const temporary = temporaryOf(this.dir, from, to);
    try {
      if (!(await mergeInto(temporary, parts, this.chunkEntries, overtaken)) || overtaken()) {
        rmSync(temporary, { force: true });
        return;
      }
      const run = installRun(this.dir, from, to, temporary);
      this.runs.splice(this.runs.indexOf(parts[0]!), parts.length, run);
      for (const part of parts) removeRun(part);
    } catch {
      // The runs it would have replaced stay, and serve as before: a merge only makes lookups
      // faster. Not tried again until the next run is added (a full disk would fail it at once).
      this.mergeFailed = true;
      try {
        rmSync(temporary, { force: true });
      } catch {
        // Whatever is in its way is removed at the next open.
      }
    }
  }
}

/** The run in `file`, or undefined when it is not one whole (or is gone: a reader beside the writer may list a run a merge then removes). */
function openRun(file: string, from: number, to: number): Run | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const footer = Buffer.alloc(FOOTER_BYTES);
    const size = fstatSync(fd).size;
    if (size < FOOTER_BYTES || readSync(fd, footer, 0, FOOTER_BYTES, size - FOOTER_BYTES) !== FOOTER_BYTES) throw new Error('short');
    const count = footer.readUInt32BE(0);
    const blocks = Math.ceil(count / BLOCK_ENTRIES);
    if (footer.readUInt32BE(4) !== BLOCK_ENTRIES || footer.readUInt32BE(8) !== MAGIC || size !== count * ENTRY_BYTES + blocks * DIGEST_KEY_BYTES + FOOTER_BYTES) throw new Error('not a run');
    const fences = Buffer.alloc(blocks * DIGEST_KEY_BYTES);
    if (readSync(fd, fences, 0, fences.length, count * ENTRY_BYTES) !== fences.length) throw new Error('short');
    return { from, to, count, fd, file, fences };
  } catch {
    closeSync(fd);
    return undefined;
  }
}

function removeRun(run: Run): void {
  closeSync(run.fd);
  rmSync(run.file, { force: true });
}

function writeRun(dir: string, from: number, to: number, bytes: Buffer): Run {
  const temporary = temporaryOf(dir, from, to);
  writeFileSync(temporary, bytes);
  return installRun(dir, from, to, temporary);
}

const temporaryOf = (dir: string, from: number, to: number): string => join(dir, `${runName(from, to)}.tmp`);

/** Renames a run written whole to `temporary` into place, and opens it. */
function installRun(dir: string, from: number, to: number, temporary: string): Run {
  const file = join(dir, runName(from, to));
  renameSync(temporary, file);
  const run = openRun(file, from, to);
  if (!run) throw new Error(`the run of leaves ${from} to ${to} could not be read back`);
  return run;
}

/** A run's bytes: the entries sorted by prefix, then leaf (the prefix read as two big-endian words). */
function runBytes(entries: DigestEntry[]): Buffer {
  const keyed = entries.map(({ digest, leaf }) => {
    const view = Buffer.from(digest.buffer, digest.byteOffset, DIGEST_KEY_BYTES);
    return { high: view.readUInt32BE(0), low: view.readUInt32BE(4), leaf };
  });
  keyed.sort((a, b) => a.high - b.high || a.low - b.low || a.leaf - b.leaf);
  const packed = Buffer.allocUnsafe(keyed.length * ENTRY_BYTES);
  keyed.forEach(({ high, low, leaf }, i) => {
    packed.writeUInt32BE(high, i * ENTRY_BYTES);
    packed.writeUInt32BE(low, i * ENTRY_BYTES + 4);
    packed.writeUInt32BE(leaf, i * ENTRY_BYTES + 8);
  });
  return runBytesFromEntries(packed);
}

/** Packed, sorted entries followed by their fences and the footer. */
function runBytesFromEntries(packed: Buffer): Buffer {
  const count = packed.length / ENTRY_BYTES;
  const fences = Buffer.allocUnsafe(Math.ceil(count / BLOCK_ENTRIES) * DIGEST_KEY_BYTES);
  for (let block = 0; block * DIGEST_KEY_BYTES < fences.length; block++) packed.copy(fences, block * DIGEST_KEY_BYTES, block * BLOCK_ENTRIES * ENTRY_BYTES, block * BLOCK_ENTRIES * ENTRY_BYTES + DIGEST_KEY_BYTES);
  return Buffer.concat([packed, fences, footerOf(count)]);
}

/** A run's last bytes: its entries' count, the block size and the magic. */
function footerOf(count: number): Buffer {
  const footer = Buffer.allocUnsafe(FOOTER_BYTES);
  footer.writeUInt32BE(count, 0);
  footer.writeUInt32BE(BLOCK_ENTRIES, 4);
  footer.writeUInt32BE(MAGIC, 8);
  return footer;
}

/** Compares entry `i` of `a` with entry `j` of `b`: prefix, then leaf, as three big-endian words. */
function compareEntries(a: Buffer, i: number, b: Buffer, j: number): number {
  return a.readUInt32BE(i) - b.readUInt32BE(j) || a.readUInt32BE(i + 4) - b.readUInt32BE(j + 4) || a.readUInt32BE(i + 8) - b.readUInt32BE(j + 8);
}

/** A run read a chunk at a time from a handle of its own (a merge's reads are not disturbed should the run be removed meanwhile). */
class ChunkedRun {
  private chunk = Buffer.alloc(0);
  /** Offset of the current entry in `chunk`. */
  at = 0;
  private read = 0;

  private constructor(
    private readonly handle: FileHandle,
    private readonly count: number,
    private readonly chunkBytes: number,
  ) {}

  static async open(run: Run, chunkEntries: number): Promise<ChunkedRun> {
    return new ChunkedRun(await open(run.file, 'r'), run.count, chunkEntries * ENTRY_BYTES);
  }

  /** The chunk holding the current entry, read when the last is used up; undefined once the run is. */
  async current(): Promise<Buffer | undefined> {
    if (this.at < this.chunk.length) return this.chunk;
    const left = this.count * ENTRY_BYTES - this.read;
    if (left === 0) return undefined;
    this.chunk = Buffer.allocUnsafe(Math.min(this.chunkBytes, left));
    const { bytesRead } = await this.handle.read(this.chunk, 0, this.chunk.length, this.read);
    if (bytesRead !== this.chunk.length) throw new Error('a digest run is shorter than it says');
    this.read += bytesRead;
    this.at = 0;
    return this.chunk;
  }

  /** The current chunk, known to hold the current entry (after `current`). */
  get loaded(): Buffer {
    return this.chunk;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/**
 * Writes the entries of runs of consecutive leaf ranges, merged into one sorted run, to `file`:
 * a chunk of each run in memory at a time, a slice of MERGE_ENTRIES_A_TURN a turn. Their leaves
 * are disjoint, so entries never tie. False, and the file left half written, when `overtaken`
 * says between two slices that the merge is no longer wanted.
 */
async function mergeInto(file: string, parts: Run[], chunkEntries: number, overtaken: () => boolean): Promise<boolean> {
  const count = parts.reduce((sum, part) => sum + part.count, 0);
  const fences = Buffer.allocUnsafe(Math.ceil(count / BLOCK_ENTRIES) * DIGEST_KEY_BYTES);
  const readers: ChunkedRun[] = [];
  const out = await open(file, 'w');
  try {
    for (const part of parts) readers.push(await ChunkedRun.open(part, chunkEntries));
    const live = readers.slice();
    const pending = Buffer.allocUnsafe(chunkEntries * ENTRY_BYTES);
    let filled = 0;
    let written = 0;
    while (written < count) {
      if (overtaken()) return false;
      for (let n = 0; n < MERGE_ENTRIES_A_TURN && written < count; n++) {
        let best: ChunkedRun | undefined;
        for (let k = 0; k < live.length; k++) {
          const reader = live[k]!;
          if (reader.at >= reader.loaded.length && !(await reader.current())) live.splice(k--, 1);
          else if (!best || compareEntries(best.loaded, best.at, reader.loaded, reader.at) > 0) best = reader;
        }
        if (written % BLOCK_ENTRIES === 0) best!.loaded.copy(fences, (written / BLOCK_ENTRIES) * DIGEST_KEY_BYTES, best!.at, best!.at + DIGEST_KEY_BYTES);
        best!.loaded.copy(pending, filled, best!.at, best!.at + ENTRY_BYTES);
        best!.at += ENTRY_BYTES;
        filled += ENTRY_BYTES;
        written++;
        if (filled === pending.length) {
          await out.write(pending, 0, filled);
          filled = 0;
        }
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await out.write(Buffer.concat([pending.subarray(0, filled), fences, footerOf(count)]));
    return true;
  } finally {
    await out.close();
    await Promise.all(readers.map((reader) => reader.close()));
  }
}

/** The leaves under `key` in one run, in order: the block its fences point to, and the next while they go on. */
function* leavesIn(run: Run, key: Buffer, block: Buffer): Generator<number> {
  const high = key.readUInt32BE(0);
  const low = key.readUInt32BE(4);
  /** Entry or fence `at` of `bytes` against the key: negative when it sorts before it. */
  const order = (bytes: Buffer, at: number): number => bytes.readUInt32BE(at) - high || bytes.readUInt32BE(at + 4) - low;
  const blocks = run.fences.length / DIGEST_KEY_BYTES;
  // The last block whose first prefix is below the key: the key's first entry is in it or just after.
  let start = 0;
  for (let lowBlock = 0, highBlock = blocks - 1; lowBlock <= highBlock; ) {
    const middle = (lowBlock + highBlock) >>> 1;
    if (order(run.fences, middle * DIGEST_KEY_BYTES) < 0) {
      start = middle;
      lowBlock = middle + 1;
    } else highBlock = middle - 1;
  }
  for (let b = start; b < blocks; b++) {
    const entries = Math.min(BLOCK_ENTRIES, run.count - b * BLOCK_ENTRIES);
    const read = readSync(run.fd, block, 0, entries * ENTRY_BYTES, b * BLOCK_ENTRIES * ENTRY_BYTES);
    if (read !== entries * ENTRY_BYTES) throw new Error(`the digest run ${run.file} is shorter than it says`);
    // The block's first entry not below the key.
    let first = entries;
    for (let lowEntry = 0, highEntry = entries - 1; lowEntry <= highEntry; ) {
      const middle = (lowEntry + highEntry) >>> 1;
      if (order(block, middle * ENTRY_BYTES) < 0) lowEntry = middle + 1;
      else {
        first = middle;
        highEntry = middle - 1;
      }
    }
    for (let e = first; e < entries; e++) {
      if (order(block, e * ENTRY_BYTES) > 0) return;
      yield block.readUInt32BE(e * ENTRY_BYTES + DIGEST_KEY_BYTES);
    }
  }
}
