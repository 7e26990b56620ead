import type { LeafStore } from '../transparency/leaf-store.ts';

/** Problems named for one run; past them, a count. */
const NAMED_A_RUN = 3;
/**
 * Lookups remembered, by digest: a result signed again is signed again many times within its
 * second (the same claim attested by many callers), and each repeat would look it up again.
 */
const LOOKUPS_KEPT = 4_096;
/** Leaves read together when the leaves a run leaves out are looked for. */
const READ_BATCH = 4_096;

/**
 * Checks the result log store's digest lookup (its sorted runs) against the store's leaves, which
 * the replay compares with the log leaf by leaf: a run once the replay has passed its last leaf.
 * Each entry is a leaf of the run's range under its own digest's key, once; the entries are
 * sorted and each block's fence is its first key (digest-runs.ts checks both as it reads); and a
 * leaf of the range without an entry is one the lookup answers with an earlier leaf of the same
 * digest (a result signed again, which the store does not list twice). Together these give what
 * a caller relies on: the lookup finds the first leaf of every digest, so a result the log holds
 * is never answered "no leaf". A run is read a chunk at a time and its leaves marked in a bitmap:
 * memory of a bit a leaf of the run, whatever its size.
 */
export class DigestRunCheck {
  /** Runs checked, and the entries they held. */
  runs = 0;
  entries = 0;
  private readonly ranges: Array<{ from: number; to: number }>;
  private next = 0;
  /** The lookup's answer by digest (hex), for the last few digests looked up; emptied when full. */
  private readonly lookups = new Map<string, number | undefined>();

  constructor(private readonly store: LeafStore) {
    this.ranges = store.digestRuns?.ranges ?? [];
  }

  /** The replay has compared leaf `leaf` (in order); the problems of the run it completes. */
  observe(leaf: number): string[] {
    const range = this.ranges[this.next];
    if (!range || leaf + 1 < range.to) return [];
    this.next++;
    return this.checkRun(range);
  }

  private checkRun({ from, to }: { from: number; to: number }): string[] {
    this.runs++;
    const name = `the digest run of leaves ${from} to ${to}`;
    const problems = new RunProblems(name);
    const listed = new Uint8Array(Math.ceil((to - from) / 8));
    const isListed = (leaf: number) => (listed[(leaf - from) >>> 3]! & (1 << ((leaf - from) & 7))) !== 0;
    try {
      for (const { high, low, leaf } of this.store.digestRuns!.entriesOf(from)) {
        this.entries++;
        if (leaf < from || leaf >= to) problems.push(`${name} lists leaf ${leaf}, outside its range`);
        else if (isListed(leaf)) problems.push(`${name} lists leaf ${leaf} twice`);
        else {
          listed[(leaf - from) >>> 3]! |= 1 << ((leaf - from) & 7);
          const digest = this.storedDigest(leaf);
          if (digest && (digest.readUInt32BE(0) !== high || digest.readUInt32BE(4) !== low))
            problems.push(`${name} lists leaf ${leaf} under ${keyHex(high, low)}; its result's digest begins ${digest.toString('hex', 0, 8)}`);
        }
      }
    } catch (err) {
      return [(err as Error).message];
    }
    // The leaves left out, read in order a batch at a time.
    for (let batch = from; batch < to; batch += READ_BATCH) {
      const count = Math.min(READ_BATCH, to - batch);
      this.store.leavesFrom(batch, count).forEach((stored, i) => {
        if (stored && !isListed(batch + i)) this.checkUnlisted(batch + i, stored.sha256, name, problems);
      });
    }
    return problems.named();
  }

  /** The lookup's answer for a digest (it does not change while the store is read). */
  private lookup(digest: Buffer): number | undefined {
    const key = digest.toString('hex');
    if (this.lookups.has(key)) return this.lookups.get(key);
    const found = this.store.find(digest);
    if (this.lookups.size >= LOOKUPS_KEPT) this.lookups.clear();
    this.lookups.set(key, found);
    return found;
  }

  /** The stored leaf's digest, or undefined for a damaged leaf (the leaves' comparison names it). */
  private storedDigest(leaf: number): Buffer | undefined {
    const sha256 = this.store.leavesFrom(leaf, 1)[0]?.sha256;
    return sha256 && Buffer.from(sha256.buffer, sha256.byteOffset, sha256.length);
  }

  /** A leaf its run leaves out: the lookup must answer its digest with an earlier leaf. */
  private checkUnlisted(leaf: number, sha256: Uint8Array, name: string, problems: RunProblems): void {
    const found = this.lookup(Buffer.from(sha256.buffer, sha256.byteOffset, sha256.length));
    if (found === undefined || found >= leaf) problems.push(`${name} does not list leaf ${leaf}, and the lookup answers its digest with ${found === undefined ? 'no leaf' : `leaf ${found}`}`);
  }
}

/** A run's problems: the first few named, the others counted (a run of a million wrong entries holds no million messages). */
class RunProblems {
  private readonly first: string[] = [];
  private more = 0;

  constructor(private readonly run: string) {}

  push(problem: string): void {
    if (this.first.length < NAMED_A_RUN) this.first.push(problem);
    else this.more++;
  }

  named(): string[] {
    return this.more === 0 ? this.first : [...this.first, `${this.run}: ${this.more} more problems`];
  }
}

const keyHex = (high: number, low: number): string => high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
