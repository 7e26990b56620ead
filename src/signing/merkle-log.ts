import { EMPTY_TREE_ROOT, leafHash, nodeHash, splitPoint } from './rfc6962-merkle.ts';
import { ByteColumn } from './byte-column.ts';

/**
 * Where a tree keeps the hashes of its complete, aligned subtrees: `at(level, i)` is the root of
 * leaves i*2^level .. (i+1)*2^level-1. Nodes are pushed once, in order within a level, and never
 * change. Only levels from `lowestLevel` up are pushed, and level 0 (the leaf hashes) only when
 * the tree has no `leafHashOf`; a smaller subtree is hashed again from its leaves when asked for.
 */
export interface NodeLevels {
  readonly lowestLevel: number;
  push(level: number, index: number, hash: Uint8Array): void;
  /** A hash the caller may keep; valid at least until the next push. */
  at(level: number, index: number): Uint8Array;
}

/** Every level in memory, 32 bytes a node. */
export class MemoryLevels implements NodeLevels {
  readonly lowestLevel = 1;
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
 * complete, aligned subtree from a level up (NodeLevels: in memory, or on disk as the result log
 * keeps them), so the root of any earlier size, an inclusion proof and a consistency proof each
 * cost O(log² n) hashes at most, and appending costs O(1) amortised and reads nothing: the right
 * edge it extends is kept here, one hash a level. In memory: about 64 bytes a leaf; 32 when the
 * owner can give any leaf's hash again (`leafHashOf`), since level 0 is then not kept.
 */
export class MerkleLog {
  private leaves: number;
  /** The lowest level stored: 0 when leaf hashes cannot be given again. */
  private readonly storedFrom: number;
  /** edge[level]: the last complete subtree of that level while it waits for its right sibling (bit `level` of the size is set). */
  private readonly edge: Uint8Array[] = [];

  /** `size`: the leaves `levels` already holds the nodes of (a tree resumed from disk). */
  constructor(
    private readonly leafHashOf?: (index: number) => Uint8Array,
    private readonly levels: NodeLevels = new MemoryLevels(),
    size = 0,
  ) {
    this.storedFrom = leafHashOf ? levels.lowestLevel : 0;
    this.leaves = size;
    for (let level = 0; 2 ** level <= size; level++) {
      const count = Math.floor(size / 2 ** level);
      if (count % 2 === 1) this.edge[level] = this.subtree((count - 1) * 2 ** level, count * 2 ** level);
    }
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
    const leaf = this.leaves;
    let node: Uint8Array = Buffer.from(hash);
    let level = 0;
    let index = leaf;
    if (this.storedFrom === 0) this.levels.push(0, leaf, node);
    // A right child completes its parent, which may be a right child in turn.
    while (index % 2 === 1) {
      node = nodeHash(this.edge[level]!, node);
      level++;
      index = (index - 1) / 2;
      if (level >= this.storedFrom) this.levels.push(level, index, node);
    }
    this.edge[level] = node;
    this.leaves++;
    return leaf;
  }

  leafHashAt(index: number): Uint8Array {
    if (!Number.isInteger(index) || index < 0 || index >= this.leaves) throw new RangeError(`leaf ${index} is outside a tree of ${this.leaves}`);
    return this.leafHashOf ? this.leafHashOf(index) : this.levels.at(0, index);
  }

  /** MTH of the complete, aligned subtree of leaves index*2^level .. (index+1)*2^level-1 (a tile's hash). */
  completeSubtree(level: number, index: number): Uint8Array {
    const width = 2 ** level;
    if (!Number.isInteger(index) || index < 0 || (index + 1) * width > this.leaves) throw new RangeError(`subtree ${index} of level ${level} is outside a tree of ${this.leaves}`);
    return this.subtree(index * width, (index + 1) * width);
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

  /** MTH(D[start:end]); the left part of every split is complete and aligned, so it is stored (or small). */
  private subtree(start: number, end: number): Uint8Array {
    const n = end - start;
    if (n === 1) return this.leafHashAt(start);
    if ((n & (n - 1)) === 0 && Math.log2(n) >= this.storedFrom) return this.levels.at(Math.log2(n), start / n);
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
