import { hash } from 'node:crypto';

/**
 * The Merkle tree of RFC 6962 (section 2.1): leaf = SHA-256(0x00 || leaf bytes),
 * node = SHA-256(0x01 || left || right), and a tree of n leaves splits at the largest power of
 * two smaller than n. Hashes are lowercase hex outside this module.
 */
export const MERKLE_RULES_VERSION = 'rfc6962-sha256/v1';

/** MTH of the empty tree: SHA-256 of no bytes. */
export const EMPTY_TREE_ROOT: Uint8Array = hash('sha256', new Uint8Array(0), 'buffer');

// One-shot hashing over one buffer: a Hash object per node cost as much as the hashing itself
// (a start rebuilds a tree of hundreds of thousands of nodes from saved leaves).
const nodeInput = Buffer.alloc(65, 1);

export const leafHash = (leaf: Uint8Array): Buffer => {
  const input = Buffer.allocUnsafe(1 + leaf.length);
  input[0] = 0;
  input.set(leaf, 1);
  return hash('sha256', input, 'buffer');
};

/**
 * leafHash of the UTF-8 bytes of `text`, hashed from the text: U+0000 is the byte 0x00 in UTF-8,
 * and node:crypto encodes a string as Buffer.from does (lone surrogates as U+FFFD included), so
 * no buffer is made for the bytes or the prefix (the result log hashes one leaf a paid call).
 */
export const leafHashOfText = (text: string): Buffer => hash('sha256', `\u0000${text}`, 'buffer');

export const nodeHash = (left: Uint8Array, right: Uint8Array): Buffer => {
  // A proof checked for a caller may carry hashes of any length: hashed as given.
  if (left.length !== 32 || right.length !== 32) return hash('sha256', Buffer.concat([NODE_PREFIX, left, right]), 'buffer');
  nodeInput.set(left, 1);
  nodeInput.set(right, 33);
  return hash('sha256', nodeInput, 'buffer');
};
const NODE_PREFIX = Uint8Array.of(1);

/** Largest power of two strictly smaller than n (n >= 2). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

export interface InclusionProof {
  leafIndex: number;
  treeSize: number;
  /** Sibling hashes from the leaf up to the root, lowercase hex. */
  auditPath: string[];
}

/**
 * A tree over fixed leaves, with subtree hashes memoised so that a page of inclusion proofs
 * costs one pass over the leaves, not one per proof.
 */
export function merkleTree(leaves: readonly Uint8Array[]) {
  const leafHashes = leaves.map(leafHash);
  const memo = new Map<string, Buffer>();
  function subtree(start: number, end: number): Buffer {
    if (end - start === 1) return leafHashes[start]!;
    const key = `${start}:${end}`;
    const hit = memo.get(key);
    if (hit) return hit;
    const k = splitPoint(end - start);
    const h = nodeHash(subtree(start, start + k), subtree(start + k, end));
    memo.set(key, h);
    return h;
  }
  function path(m: number, start: number, end: number): Buffer[] {
    const n = end - start;
    if (n === 1) return [];
    const k = splitPoint(n);
    return m < k ? [...path(m, start, start + k), subtree(start + k, end)] : [...path(m - k, start + k, end), subtree(start, start + k)];
  }
  return {
    size: leaves.length,
    /** The RFC's hash of the empty tree is SHA-256 of nothing. */
    rootHex: (): string => (leaves.length === 0 ? hash('sha256', Buffer.alloc(0), 'hex') : subtree(0, leaves.length).toString('hex')),
    proof(leafIndex: number): InclusionProof {
      if (!Number.isInteger(leafIndex) || leafIndex < 0 || leafIndex >= leaves.length) throw new RangeError(`leaf ${leafIndex} is outside a tree of ${leaves.length}`);
      return { leafIndex, treeSize: leaves.length, auditPath: path(leafIndex, 0, leaves.length).map((h) => h.toString('hex')) };
    },
  };
}

/**
 * The root an inclusion proof leads to (RFC 9162 section 2.1.3.2, the same tree as RFC 6962),
 * or undefined when the proof's shape cannot belong to a tree of that size.
 */
export function rootFromInclusionProof(leaf: Uint8Array, proof: InclusionProof): string | undefined {
  const { leafIndex, treeSize, auditPath } = proof;
  if (!Number.isInteger(leafIndex) || !Number.isInteger(treeSize) || leafIndex < 0 || leafIndex >= treeSize) return undefined;
  if (!auditPath.every((h) => /^[0-9a-f]{64}$/.test(h))) return undefined;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r = leafHash(leaf);
  for (const siblingHex of auditPath) {
    if (sn === 0) return undefined;
    const sibling = Buffer.from(siblingHex, 'hex');
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(sibling, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, sibling);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r.toString('hex') : undefined;
}

export interface ConsistencyProof {
  firstSize: number;
  secondSize: number;
  /** Lowercase hex hashes, as RFC 6962 section 2.1.2 orders them. */
  path: string[];
}

/**
 * Whether `proof` shows that the tree of `firstSize` leaves with root `firstRoot` is a prefix of
 * the tree of `secondSize` leaves with root `secondRoot` (RFC 9162 section 2.1.4.2).
 */
export function verifyConsistencyProof(firstRoot: string, secondRoot: string, proof: ConsistencyProof): boolean {
  const { firstSize, secondSize } = proof;
  if (!Number.isInteger(firstSize) || !Number.isInteger(secondSize) || firstSize < 1 || firstSize > secondSize) return false;
  if (![firstRoot, secondRoot, ...proof.path].every((h) => /^[0-9a-f]{64}$/.test(h))) return false;
  if (firstSize === secondSize) return proof.path.length === 0 && firstRoot === secondRoot;
  const path = (firstSize & (firstSize - 1)) === 0 ? [firstRoot, ...proof.path] : [...proof.path];
  if (path.length === 0) return false;
  let fn = firstSize - 1;
  let sn = secondSize - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr: Buffer = Buffer.from(path[0]!, 'hex');
  let sr: Buffer = fr;
  for (const hex of path.slice(1)) {
    if (sn === 0) return false;
    const c = Buffer.from(hex, 'hex');
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.toString('hex') === firstRoot && sr.toString('hex') === secondRoot;
}
