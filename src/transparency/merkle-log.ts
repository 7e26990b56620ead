import { EMPTY_TREE_ROOT, leafHash, nodeHash, splitPoint } from '../signing/rfc6962-merkle.ts';
import { ByteColumn } from './columns.ts';

/**
 * Where a tree keeps the hashes of its complete, aligned subtrees: `at(level, i)` is the root of
 * leaves i*2^level .. (i+1)*2^level-1. Nodes are pushed once, in order within a level, and never
 * change. Level 0 (the leaf hashes) is pushed only when the tree has no `leafHashOf`.
 */
export interface NodeLevels {
  push(level: number, index: number, hash: Uint8Array): void;
  /** A hash the caller may keep; valid at least until the next push. */
  at(level: number, index: number): Uint8Array;
}

/** Every level in memory, 32 bytes a node. */
export class MemoryLevels implements NodeLevels {
  private readonly columns: ByteColumn[] = [];

  push(level: number, index: number, hash: Uint8Array): void {
    const column = (this.columns[level] ??= new ByteColumn(32));
    if (index !== column.length) throw new RangeError(`node ${index} of level ${level} pushed after ${column.length} nodes`);
    column.push(hash);
  }

  at(level: number, index: number): Uint8Array {
    const column = this.columns[level];
    if (!column) throw new RangeError(`no node of level ${level} is kept`);
    return column.at(index);
  }
}

/**
 * An append-only RFC 6962 Merkle tree that grows one leaf at a time. It stores the hash of every
 * complete, aligned subtree (NodeLevels: in memory, or on disk as the result log keeps them), so
 * the root of any earlier size, an inclusion proof and a consistency proof each cost O(log² n)
 * hashes at most, and appending costs O(1) amortised. In memory: about 64 bytes a leaf; 32 when
 * the owner can give any leaf's hash again (`leafHashOf`), since level 0 is then not kept: a
 * proof asks for two or three leaf hashes.
 */
export class MerkleLog {
  private leaves: number;
  /** The last leaf's hash: the left half of the next pair. */
  private readonly lastLeafHash = new Uint8Array(32);

  /** `size`: the leaves `levels` already holds the nodes of (a tree resumed from disk). */
  constructor(
    private readonly leafHashOf?: (index: number) => Uint8Array,
    private readonly levels: NodeLevels = new MemoryLevels(),
    size = 0,
  ) {
    this.leaves = size;
    if (size > 0) this.lastLeafHash.set(this.leafHashAt(size - 1));
  }

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
    if (!this.leafHashOf) this.levels.push(0, index, hash);
    if (index % 2 === 0) {
      this.lastLeafHash.set(hash);
      return index;
    }
    // Each completed pair of subtrees at one level completes one subtree at the level above.
    let parent = nodeHash(this.lastLeafHash, hash);
    let level = 1;
    let position = (index - 1) / 2;
    for (;;) {
      this.levels.push(level, position, parent);
      if (position % 2 === 0) break;
      parent = nodeHash(this.levels.at(level, position - 1), parent);
      level++;
      position = (position - 1) / 2;
    }
    this.lastLeafHash.set(hash);
    return index;
  }

  leafHashAt(index: number): Uint8Array {
    if (!Number.isInteger(index) || index < 0 || index >= this.leaves) throw new RangeError(`leaf ${index} is outside a tree of ${this.leaves}`);
    return this.leafHashOf ? this.leafHashOf(index) : this.levels.at(0, index);
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
      return this.levels.at(Math.log2(n), start / n);
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
