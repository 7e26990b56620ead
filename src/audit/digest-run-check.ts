import type { LeafStore } from '../transparency/leaf-store.ts';

/** Problems named for one run; past them, a count. */
const NAMED_A_RUN = 3;
/**
 * Lookups remembered, by digest: a result signed again is signed again many times within its
 * second (the same claim attested by many callers), and each repeat would look it up again.
 */
const LOOKUPS_KEPT = 4_096;

/** The run the replay is in: which of its leaves it lists, and what was found wrong so far. */
interface RunUnderCheck {
  from: number;
  to: number;
  /** A bit a leaf of the run; undefined when the run could not be read through (its one problem says why). */
  listed: Uint8Array | undefined;
  problems: RunProblems;
}

/**
 * Checks the result log store's digest lookup (its sorted runs) against the store's leaves, which
 * the replay compares with the log leaf by leaf. When the replay reaches a run's first leaf the
 * run is read, a chunk at a time: each entry must be a leaf of the run's range under its own
 * digest's key, once; the entries sorted and each block's fence its first key (digest-runs.ts
 * checks both as it reads). Then, as the replay passes each leaf of the range with the stored leaf
 * it compared, a leaf without an entry must be one the lookup answers with an earlier leaf of the
 * same digest (a result signed again, which the store does not list twice). The run's problems
 * are reported at its last leaf. Together these give what a caller relies on: the lookup finds
 * the first leaf of every digest, so a result the log holds is never answered "no leaf". Memory: a
 * bit a leaf of the run being replayed, whatever its size, and the last lookups.
 */
export class DigestRunCheck {
  /** Runs checked, and the entries they held. */
  runs = 0;
  entries = 0;
  private readonly ranges: Array<{ from: number; to: number }>;
  private next = 0;
  private current: RunUnderCheck | undefined;
  /** The lookup's answer by digest (hex), for the last few digests looked up; emptied when full. */
  private readonly lookups = new Map<string, number | undefined>();

  constructor(private readonly store: LeafStore) {
    this.ranges = store.digestRuns?.ranges ?? [];
  }

  /**
   * The replay has compared leaf `leaf` (in order) and read its stored digest (undefined for a
   * damaged leaf, which the comparison names); the problems of the run it completes.
   */
  observe(leaf: number, storedSha256: Uint8Array | undefined): string[] {
    const range = this.ranges[this.next];
    if (!range || leaf < range.from) return [];
    if (leaf === range.from) this.current = this.readRun(range);
    const run = this.current!;
    if (run.listed && storedSha256 && !isListed(run, leaf)) this.checkUnlisted(leaf, storedSha256, run);
    if (leaf + 1 < range.to) return [];
    this.next++;
    this.current = undefined;
    return run.problems.named();
  }

  /** Reads the run of leaves `from` .. to-1 through, checking each entry against its stored leaf. */
  private readRun({ from, to }: { from: number; to: number }): RunUnderCheck {
    this.runs++;
    const run: RunUnderCheck = { from, to, listed: new Uint8Array(Math.ceil((to - from) / 8)), problems: new RunProblems(`the digest run of leaves ${from} to ${to}`) };
    const name = run.problems.run;
    try {
      for (const { high, low, leaf } of this.store.digestRuns!.entriesOf(from)) {
        this.entries++;
        if (leaf < from || leaf >= to) run.problems.push(`${name} lists leaf ${leaf}, outside its range`);
        else if (isListed(run, leaf)) run.problems.push(`${name} lists leaf ${leaf} twice`);
        else {
          run.listed![(leaf - from) >>> 3]! |= 1 << ((leaf - from) & 7);
          const digest = this.storedDigest(leaf);
          if (digest && (digest.readUInt32BE(0) !== high || digest.readUInt32BE(4) !== low))
            run.problems.push(`${name} lists leaf ${leaf} under ${keyHex(high, low)}; its result's digest begins ${digest.toString('hex', 0, 8)}`);
        }
      }
    } catch (err) {
      return { from, to, listed: undefined, problems: RunProblems.only(name, (err as Error).message) };
    }
    return run;
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
  private checkUnlisted(leaf: number, sha256: Uint8Array, run: RunUnderCheck): void {
    const found = this.lookup(Buffer.from(sha256.buffer, sha256.byteOffset, sha256.length));
    if (found === undefined || found >= leaf) run.problems.push(`${run.problems.run} does not list leaf ${leaf}, and the lookup answers its digest with ${found === undefined ? 'no leaf' : `leaf ${found}`}`);
  }
}

const isListed = (run: RunUnderCheck, leaf: number): boolean => (run.listed![(leaf - run.from) >>> 3]! & (1 << ((leaf - run.from) & 7))) !== 0;

/** A run's problems: the first few named, the others counted (a run of a million wrong entries holds no million messages). */
class RunProblems {
  private readonly first: string[] = [];
  private more = 0;

  constructor(readonly run: string) {}

  static only(run: string, problem: string): RunProblems {
    const problems = new RunProblems(run);
    problems.push(problem);
    return problems;
  }

  push(problem: string): void {
    if (this.first.length < NAMED_A_RUN) this.first.push(problem);
    else this.more++;
  }

  named(): string[] {
    return this.more === 0 ? this.first : [...this.first, `${this.run}: ${this.more} more problems`];
  }
}

const keyHex = (high: number, low: number): string => high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
