/**
 * The decisions of an agent's past that nothing can change any more (a settled lease, a lease
 * expired unsettled long ago, a refused reserve), as the governor's state keeps them once they
 * are old: 16 bytes each, where the state held a few hundred. An entry is the first 8 bytes of
 * the decision's lease-id hash (leaseIdFor: the same for a reserve's lease and for its refusal)
 * and where its events lie in the agent's stream; what they decided is read back from there
 * when a call names one (commands.ts), and the decider checks what is read against the entry.
 *
 * Immutable, as a state is: adding makes a new archive sharing the old one's runs. Entries are
 * kept in sorted runs, merged while a run is not at least twice as large as the next one, so an
 * archive of n entries has at most log2(n) runs and each entry is copied about log2(n) times.
 */
export interface ArchivedDecision {
  /** The revision of the LeaseReserved or ReserveRefused event. */
  revision: number;
  /** Of a lease: the revision of its LeaseSettled event, if it was settled. */
  settledRevision?: number;
  refused: boolean;
}

/** Revisions are u32 in an entry; these two values of its last word are markers, not revisions. */
const UNSETTLED = 0xffff_ffff;
const REFUSED = 0xffff_fffe;
/** The largest revision an entry holds: an agent's stream of more events cannot be archived. */
export const MAX_ARCHIVED_REVISION = REFUSED - 1;
const WORDS = 4;
const ENTRY_BYTES = WORDS * 4;
const KEY_HEX = 16;

/** The archive key of a lease id (`<agent>:<24 hex>`, leaseIdFor): the first 8 bytes of its hash. */
export function archiveKeyOf(leaseId: string): string {
  const at = leaseId.lastIndexOf(':') + 1;
  // Looked up for every lease evolve folds: checked without a regular expression.
  if (at === 0 || leaseId.length - at !== 24 || !isLowerHex(leaseId, at)) throw new Error(`not a lease id: ${leaseId}`);
  return leaseId.slice(at, at + KEY_HEX);
}

function isLowerHex(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

export interface ArchiveEntry {
  key: string;
  decision: ArchivedDecision;
}

/** A run's entries as words: key high, key low, revision, then the settlement's revision or a marker. */
type Run = Uint32Array;

export class LeaseArchive {
  private constructor(private readonly runs: readonly Run[]) {}

  static empty(): LeaseArchive {
    return new LeaseArchive([]);
  }

  /**
   * The archive whose entries `bytesInOrder` yielded: a snapshot's. Throws on a chunk that is not
   * whole entries, and on entries out of key order or repeated.
   */
  static ofBytes(chunks: Iterable<Uint8Array>): LeaseArchive {
    const parts = [...chunks].map((chunk) => {
      if (chunk.byteLength % ENTRY_BYTES !== 0) throw new Error(`archive bytes: ${chunk.byteLength} is not a whole number of ${ENTRY_BYTES}-byte entries`);
      const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      return Uint32Array.from({ length: chunk.byteLength / 4 }, (_, i) => view.getUint32(i * 4));
    });
    const run = new Uint32Array(parts.reduce((sum, part) => sum + part.length, 0));
    parts.reduce((at, part) => (run.set(part, at), at + part.length), 0);
    for (let at = WORDS; at < run.length; at += WORDS) {
      if (compareAt(run, at - WORDS, run, at) >= 0) throw new Error('archive entries out of order or repeated');
    }
    return run.length === 0 ? LeaseArchive.empty() : new LeaseArchive([run]);
  }

  /** The entries in key order, `perChunk` a chunk, as bytes: 16 each, four big-endian words (the key's two, the revision, the settlement's revision or a marker). */
  *bytesInOrder(perChunk: number): Generator<Buffer> {
    const all = this.runs.reduce<Run>((into, run) => merged(into, run), new Uint32Array(0));
    for (let from = 0; from < all.length; from += perChunk * WORDS) {
      const words = all.subarray(from, Math.min(all.length, from + perChunk * WORDS));
      const bytes = Buffer.alloc(words.length * 4);
      words.forEach((word, i) => bytes.writeUInt32BE(word, i * 4));
      yield bytes;
    }
  }

  get size(): number {
    return this.runs.reduce((sum, run) => sum + run.length / WORDS, 0);
  }

  /** The decision archived under the lease id's key, if any. */
  find(leaseId: string): ArchivedDecision | undefined {
    return this.runs.length === 0 ? undefined : this.findKey(archiveKeyOf(leaseId));
  }

  /** The decision archived under this key (archiveKeyOf), if any. */
  findKey(key: string): ArchivedDecision | undefined {
    const [high, low] = wordsOf(key);
    return this.findWords(high, low);
  }

  private findWords(high: number, low: number): ArchivedDecision | undefined {
    for (const run of this.runs) {
      const at = search(run, high, low);
      if (at >= 0) return decisionAt(run, at);
    }
    return undefined;
  }

  /**
   * This archive with the entries added. A key archived already, or twice in `entries`, is a
   * fault of the caller (which leaves such a rare lease whole in the state instead): it throws,
   * and nothing is added.
   */
  with(entries: readonly ArchiveEntry[]): LeaseArchive {
    if (entries.length === 0) return this;
    const run = sorted(packed(entries));
    for (let at = 0; at < run.length; at += WORDS) {
      if ((at > 0 && compareAt(run, at - WORDS, run, at) === 0) || this.findWords(run[at]!, run[at + 1]!)) {
        throw new Error(`archive key ${keyHexAt(run, at)} archived twice`);
      }
    }
    const runs = [...this.runs, run];
    while (runs.length > 1 && runs[runs.length - 2]!.length < 2 * runs[runs.length - 1]!.length) {
      const last = runs.pop()!;
      runs.push(merged(runs.pop()!, last));
    }
    return new LeaseArchive(runs);
  }
}

function wordsOf(key: string): [number, number] {
  return [Number.parseInt(key.slice(0, 8), 16), Number.parseInt(key.slice(8, 16), 16)];
}

function keyHexAt(run: Run, at: number): string {
  return run[at]!.toString(16).padStart(8, '0') + run[at + 1]!.toString(16).padStart(8, '0');
}

function packed(entries: readonly ArchiveEntry[]): Run {
  const run = new Uint32Array(entries.length * WORDS);
  entries.forEach(({ key, decision }, i) => {
    if (key.length !== KEY_HEX || !isLowerHex(key, 0)) throw new Error(`archive key ${key}: 16 hex digits expected`);
    if (!Number.isInteger(decision.revision) || decision.revision < 0 || decision.revision > MAX_ARCHIVED_REVISION) throw new Error(`archive revision ${decision.revision} out of range`);
    const settled = decision.settledRevision;
    if (settled !== undefined && (decision.refused || !Number.isInteger(settled) || settled <= decision.revision || settled > MAX_ARCHIVED_REVISION)) {
      throw new Error(`archive settlement revision ${settled} of revision ${decision.revision} out of range`);
    }
    const at = i * WORDS;
    [run[at], run[at + 1]] = wordsOf(key);
    run[at + 2] = decision.revision;
    run[at + 3] = decision.refused ? REFUSED : (settled ?? UNSETTLED);
  });
  return run;
}

/** The run's entries in key order (compared as words: faster than the keys' text). */
function sorted(run: Run): Run {
  const order = Array.from({ length: run.length / WORDS }, (_, i) => i * WORDS).sort((i, j) => compareAt(run, i, run, j));
  const out = new Uint32Array(run.length);
  order.forEach((from, i) => out.set(run.subarray(from, from + WORDS), i * WORDS));
  return out;
}

function decisionAt(run: Run, at: number): ArchivedDecision {
  const last = run[at + 3]!;
  if (last === REFUSED) return { revision: run[at + 2]!, refused: true };
  return { revision: run[at + 2]!, refused: false, ...(last === UNSETTLED ? {} : { settledRevision: last }) };
}

function compareAt(a: Run, i: number, b: Run, j: number): number {
  return a[i]! - b[j]! || a[i + 1]! - b[j + 1]!;
}

/** The word offset of the entry with this key in a sorted run, or -1. */
function search(run: Run, high: number, low: number): number {
  let lo = 0;
  let hi = run.length / WORDS - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = mid * WORDS;
    const order = run[at]! - high || run[at + 1]! - low;
    if (order === 0) return at;
    if (order < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function merged(a: Run, b: Run): Run {
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let o = 0;
  while (i < a.length && j < b.length) {
    if (compareAt(a, i, b, j) <= 0) {
      for (let w = 0; w < WORDS; w++) out[o + w] = a[i + w]!;
      i += WORDS;
    } else {
      for (let w = 0; w < WORDS; w++) out[o + w] = b[j + w]!;
      j += WORDS;
    }
    o += WORDS;
  }
  out.set(a.subarray(i), o);
  out.set(b.subarray(j), o + a.length - i);
  return out;
}
