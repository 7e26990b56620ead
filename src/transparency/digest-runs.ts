import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** An entry: the digest's first 8 bytes (its lookup key), then the leaf (u32, big-endian). */
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
/** Runs of one size are merged this many at a time into one run as large as they are together. */
const MERGE_FAN_IN = 4;
/**
 * Runs are not merged past this many leaves: a merge holds its runs in memory (12 bytes an entry),
 * and beyond it a lookup reads one more run every million leaves (a block or two each).
 */
const MAX_MERGED_LEAVES = 1_048_576;
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
    runs: Run[],
  ) {
    this.runs = runs;
  }

  static open(dir: string, options: { readOnly: boolean; runLeaves?: number }): DigestRuns {
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
    return new DigestRuns(dir, options.readOnly, options.runLeaves ?? DEFAULT_RUN_LEAVES, runs);
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
   * The entries of the run of leaves `from` .. to-1, read whole, for an audit: each entry's key
   * (the digest's first 8 bytes as two big-endian words) and leaf, in the file's order. Throws,
   * saying what, when the entries are not sorted or the fences are not their blocks' first keys,
   * since a lookup relies on both.
   */
  *entriesOf(from: number): Generator<DigestRunEntry> {
    const run = this.runs.find((r) => r.from === from);
    if (!run) throw new RangeError(`no digest run starts at leaf ${from}`);
    const bytes = Buffer.allocUnsafe(run.count * ENTRY_BYTES);
    if (readSync(run.fd, bytes, 0, bytes.length, 0) !== bytes.length) throw new Error(`the digest run of leaves ${run.from} to ${run.to} is shorter than it says`);
    for (let block = 0; block * BLOCK_ENTRIES < run.count; block++)
      if (bytes.compare(run.fences, block * DIGEST_KEY_BYTES, (block + 1) * DIGEST_KEY_BYTES, block * BLOCK_ENTRIES * ENTRY_BYTES, block * BLOCK_ENTRIES * ENTRY_BYTES + DIGEST_KEY_BYTES) !== 0)
        throw new Error(`the digest run of leaves ${run.from} to ${run.to}: the fence of block ${block} is not its first key`);
    for (let at = 0; at < bytes.length; at += ENTRY_BYTES) {
      if (at > 0 && compareEntries(bytes, at - ENTRY_BYTES, bytes, at) >= 0)
        throw new Error(`the digest run of leaves ${run.from} to ${run.to}: entry ${at / ENTRY_BYTES} is not after the one before it`);
      yield { high: bytes.readUInt32BE(at), low: bytes.readUInt32BE(at + 4), leaf: bytes.readUInt32BE(at + DIGEST_KEY_BYTES) };
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
      if (size * MERGE_FAN_IN > MAX_MERGED_LEAVES || group.some((run) => sizeOf(run) !== size)) continue;
      this.merging = this.merge(group).finally(() => {
        this.merging = undefined;
        this.mergeWhenDue();
      });
      return;
    }
  }

  /** Merges consecutive runs into one (read and written off the event loop, merged a slice a turn), then swaps them for it. */
  private async merge(parts: Run[]): Promise<void> {
    const generation = this.generation;
    const from = parts[0]!.from;
    const to = parts.at(-1)!.to;
    try {
      const contents = await Promise.all(parts.map(async (run) => (await readFile(run.file)).subarray(0, run.count * ENTRY_BYTES)));
      const merged = await mergeSorted(contents);
      if (generation !== this.generation || this.closed) return;
      const temporary = temporaryOf(this.dir, from, to);
      await writeFile(temporary, runBytesFromEntries(merged));
      if (generation !== this.generation || this.closed) {
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
        rmSync(temporaryOf(this.dir, from, to), { force: true });
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
  const blocks = Math.ceil(count / BLOCK_ENTRIES);
  const bytes = Buffer.allocUnsafe(packed.length + blocks * DIGEST_KEY_BYTES + FOOTER_BYTES);
  packed.copy(bytes, 0);
  for (let block = 0; block < blocks; block++) packed.copy(bytes, packed.length + block * DIGEST_KEY_BYTES, block * BLOCK_ENTRIES * ENTRY_BYTES, block * BLOCK_ENTRIES * ENTRY_BYTES + DIGEST_KEY_BYTES);
  const footer = packed.length + blocks * DIGEST_KEY_BYTES;
  bytes.writeUInt32BE(count, footer);
  bytes.writeUInt32BE(BLOCK_ENTRIES, footer + 4);
  bytes.writeUInt32BE(MAGIC, footer + 8);
  return bytes;
}

/** Compares entry `i` of `a` with entry `j` of `b`: prefix, then leaf, as three big-endian words. */
function compareEntries(a: Buffer, i: number, b: Buffer, j: number): number {
  return a.readUInt32BE(i) - b.readUInt32BE(j) || a.readUInt32BE(i + 4) - b.readUInt32BE(j + 4) || a.readUInt32BE(i + 8) - b.readUInt32BE(j + 8);
}

/**
 * The entries of runs of consecutive leaf ranges, merged into one sorted list. Their leaves are
 * disjoint, so entries never tie; a slice of MERGE_ENTRIES_A_TURN a turn.
 */
async function mergeSorted(parts: Buffer[]): Promise<Buffer> {
  const out = Buffer.allocUnsafe(parts.reduce((sum, part) => sum + part.length, 0));
  const at = parts.map(() => 0);
  let written = 0;
  while (written < out.length) {
    for (let n = 0; n < MERGE_ENTRIES_A_TURN && written < out.length; n++) {
      let best = -1;
      for (let k = 0; k < parts.length; k++) {
        if (at[k]! >= parts[k]!.length) continue;
        if (best < 0 || compareEntries(parts[best]!, at[best]!, parts[k]!, at[k]!) > 0) best = k;
      }
      const part = parts[best]!;
      const from = at[best]!;
      out.writeUInt32BE(part.readUInt32BE(from), written);
      out.writeUInt32BE(part.readUInt32BE(from + 4), written + 4);
      out.writeUInt32BE(part.readUInt32BE(from + 8), written + 8);
      at[best] = from + ENTRY_BYTES;
      written += ENTRY_BYTES;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
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
