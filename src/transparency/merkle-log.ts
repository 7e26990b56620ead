import { EMPTY_TREE_ROOT, leafHash, nodeHash, splitPoint } from '../signing/rfc6962-merkle.ts';
import { ByteColumn } from './columns.ts';

/**
 * An append-only RFC 6962 Merkle tree that grows one leaf at a time. Level k keeps the hash of
 * every complete, aligned subtree of 2^k leaves, so the root of any earlier size, an inclusion
 * proof and a consistency proof each cost O(log² n) hashes at most, and appending costs O(1)
 * amortised. Memory: about 64 bytes a leaf; 32 when the owner can give any leaf's hash again
 * (`leafHashOf`), since level 0 is then not kept: a proof asks for two or three leaf hashes.
 */
export class MerkleLog {
  /** levels[0] is empty when leaf hashes come from `leafHashOf`. */
  private readonly levels: ByteColumn[] = [new ByteColumn(32)];
  private leaves = 0;
  /** The last leaf's hash: the left half of the next pair. */
  private readonly lastLeafHash = new Uint8Array(32);

  constructor(private readonly leafHashOf?: (index: number) => Uint8Array) {}

  get size(): number {
    return this.leaves;
  }

  /** Appends the leaf (its bytes, hashed here as RFC 6962 leaves are) and returns its index. */
  append(leaf: Uint8Array): number {
    return this.appendLeafHash(leafHash(leaf));
  }

  appendLeafHash(hash: Uint8Array): number {
    if (hash.length !== 32) throw new RangeError(`a leaf hash is 32 bytes, not ${hash.length}`);
    const index = this.leaves++;
    if (!this.leafHashOf) this.levels[0]!.push(hash);
    if (index % 2 === 0) {
      this.lastLeafHash.set(hash);
      return index;
    }
    // Each completed pair of subtrees at one level completes one subtree at the level above.
    let parent = nodeHash(this.lastLeafHash, hash);
    let level = 1;
    let position = (index - 1) / 2;
    for (;;) {
      if (!this.levels[level]) this.levels.push(new ByteColumn(32));
      this.levels[level]!.push(parent);
      if (position % 2 === 0) break;
      const column = this.levels[level]!;
      parent = nodeHash(column.at(position - 1), column.at(position));
      level++;
      position = (position - 1) / 2;
    }
    this.lastLeafHash.set(hash);
    return index;
  }

  leafHashAt(index: number): Uint8Array {
    if (!Number.isInteger(index) || index < 0 || index >= this.leaves) throw new RangeError(`leaf ${index} is outside a tree of ${this.leaves}`);
    return this.leafHashOf ? this.leafHashOf(index) : this.levels[0]!.at(index);
  }

  /** MTH(D[0:size]) of RFC 6962 section 2.1: the root the tree had when it held `size` leaves. */
  root(size = this.size): Uint8Array {
    this.checkSize(size);
    return size === 0 ? EMPTY_TREE_ROOT : this.subtree(0, size);
  }

  /** The audit path of RFC 6962 section 2.1.1 for leaf `index` in the tree of `size` leaves. */
  inclusionProof(index: number, size = this.size): Uint8Array[] {
    this.checkSize(size);
    if (!Number.isInteger(index) || index < 0 || index >= size) throw new RangeError(`leaf ${index} is outside a tree of ${size}`);
    return this.path(index, 0, size);
  }

  /** The consistency proof of RFC 6962 section 2.1.2 between the trees of `first` and `second` leaves. */
  consistencyProof(first: number, second = this.size): Uint8Array[] {
    this.checkSize(second);
    if (!Number.isInteger(first) || first < 1 || first > second) throw new RangeError(`no consistency proof from ${first} to ${second} leaves (1 <= first <= second)`);
    return this.subproof(first, 0, second, true);
  }

  private checkSize(size: number): void {
    if (!Number.isInteger(size) || size < 0 || size > this.leaves) throw new RangeError(`the log holds ${this.leaves} leaves, not ${size}`);
  }

  /** MTH(D[start:end]); the left part of every split is complete and aligned, so it is stored. */
  private subtree(start: number, end: number): Uint8Array {
    const n = end - start;
    if (n === 1) return this.leafHashAt(start);
    if ((n & (n - 1)) === 0) {
      const level = Math.log2(n);
      return this.levels[level]!.at(start / n);
    }
    const k = splitPoint(n);
    return nodeHash(this.subtree(start, start + k), this.subtree(start + k, end));
  }

  private path(m: number, start: number, end: number): Uint8Array[] {
    const n = end - start;
    if (n === 1) return [];
    const k = splitPoint(n);
    return m < k ? [...this.path(m, start, start + k), this.subtree(start + k, end)] : [...this.path(m - k, start + k, end), this.subtree(start, start + k)];
  }

  private subproof(m: number, start: number, end: number, complete: boolean): Uint8Array[] {
    const n = end - start;
    if (m === n) return complete ? [] : [this.subtree(start, end)];
    const k = splitPoint(n);
    if (m <= k) return [...this.subproof(m, start, start + k, complete), this.subtree(start + k, end)];
    return [...this.subproof(m - k, start + k, end, false), this.subtree(start, start + k)];
  }
}
