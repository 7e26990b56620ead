import type { LeafStore } from '../transparency/leaf-store.ts';

/** Problems named for one run; past them, a count. */
const NAMED_A_RUN = 3;

/**
 * Checks the result log store's digest lookup (its sorted runs) against the replayed results, a
 * run at a time as the replay passes its last leaf: each entry is a leaf of the run's range under
 * its own digest's key, once; and a leaf of the range without an entry is one the lookup answers
 * with an earlier leaf of the same digest (a result signed again, which the store does not list
 * twice). Together these give what a caller relies on: the lookup finds the first leaf of every
 * digest, so a result the log holds is never answered "no leaf". Memory: 8 bytes a leaf of the
 * run being replayed (a merged run covers about a million).
 */
export class DigestRunCheck {
  /** Runs checked, and the entries they held. */
  runs = 0;
  entries = 0;
  private readonly ranges: Array<{ from: number; to: number }>;
  private next = 0;
  private high = new Uint32Array(0);
  private low = new Uint32Array(0);

  constructor(private readonly store: LeafStore) {
    this.ranges = store.digestRuns?.ranges ?? [];
    this.startRange();
  }

  /** Leaf `leaf` of the replay (in order) and its digest's hex; the problems of the run it completes. */
  observe(leaf: number, sha256Hex: string): string[] {
    const range = this.ranges[this.next];
    if (!range || leaf < range.from) return [];
    this.high[leaf - range.from] = Number.parseInt(sha256Hex.slice(0, 8), 16);
    this.low[leaf - range.from] = Number.parseInt(sha256Hex.slice(8, 16), 16);
    if (leaf + 1 < range.to) return [];
    this.next++;
    const problems = this.checkRun(range);
    this.startRange();
    return problems;
  }

  private startRange(): void {
    const range = this.ranges[this.next];
    const size = range ? range.to - range.from : 0;
    if (this.high.length < size) {
      this.high = new Uint32Array(size);
      this.low = new Uint32Array(size);
    }
  }

  private checkRun({ from, to }: { from: number; to: number }): string[] {
    this.runs++;
    const name = `the digest run of leaves ${from} to ${to}`;
    const problems: string[] = [];
    const listed = new Uint8Array(to - from);
    try {
      for (const { high, low, leaf } of this.store.digestRuns!.entriesOf(from)) {
        this.entries++;
        if (leaf < from || leaf >= to) problems.push(`${name} lists leaf ${leaf}, outside its range`);
        else if (listed[leaf - from]) problems.push(`${name} lists leaf ${leaf} twice`);
        else if (high !== this.high[leaf - from] || low !== this.low[leaf - from]) problems.push(`${name} lists leaf ${leaf} under ${keyHex(high, low)}; its result's digest begins ${keyHex(this.high[leaf - from]!, this.low[leaf - from]!)}`);
        else listed[leaf - from] = 1;
      }
    } catch (err) {
      return [(err as Error).message];
    }
    for (let leaf = from; leaf < to; leaf++) if (!listed[leaf - from]) this.checkUnlisted(leaf, name, problems);
    return problems.length <= NAMED_A_RUN ? problems : [...problems.slice(0, NAMED_A_RUN), `${name}: ${problems.length - NAMED_A_RUN} more problems`];
  }

  /** A leaf its run leaves out: the lookup must answer its digest with an earlier leaf. */
  private checkUnlisted(leaf: number, name: string, problems: string[]): void {
    let sha256: Uint8Array;
    try {
      sha256 = this.store.leafAt(leaf).sha256;
    } catch {
      return; // a damaged leaf: the leaves' comparison names it
    }
    const found = this.store.find(sha256);
    if (found === undefined || found >= leaf) problems.push(`${name} does not list leaf ${leaf}, and the lookup answers its digest with ${found === undefined ? 'no leaf' : `leaf ${found}`}`);
  }
}

const keyHex = (high: number, low: number): string => high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
