import { EMPTY_TREE_ROOT, nodeHash } from '../signing/rfc6962-merkle.ts';

/**
 * The right edge of an RFC 6962 tree of `size` leaves: the root of each maximal complete subtree
 * of the leaves 0..size-1, one for each bit set in `size`, largest first. It is all that is
 * needed to append further leaves and to give the root of the tree at its size: O(log n) hashes
 * however long the log.
 */
export class CompactRange {
  private constructor(
    private readonly hashes: Uint8Array[],
    /** hashes[i] is the root of a complete subtree of 2^heights[i] leaves. */
    private readonly heights: number[],
    private leaves: number,
  ) {}

  static empty(): CompactRange {
    return new CompactRange([], [], 0);
  }

  get size(): number {
    return this.leaves;
  }

  append(leafHash: Uint8Array): void {
    let hash: Uint8Array = Buffer.from(leafHash);
    let height = 0;
    // Two subtrees of one height side by side are one subtree of the next.
    while (this.heights.length > 0 && this.heights.at(-1) === height) {
      hash = nodeHash(this.hashes.pop()!, hash);
      this.heights.pop();
      height++;
    }
    this.hashes.push(hash);
    this.heights.push(height);
    this.leaves++;
  }

  /** MTH of RFC 6962 section 2.1 over the leaves so far: each subtree joined with all that follows it. */
  root(): Uint8Array {
    if (this.hashes.length === 0) return EMPTY_TREE_ROOT;
    let root = this.hashes.at(-1)!;
    for (let i = this.hashes.length - 2; i >= 0; i--) root = nodeHash(this.hashes[i]!, root);
    return root;
  }

  copy(): CompactRange {
    return new CompactRange([...this.hashes], [...this.heights], this.leaves);
  }
}
