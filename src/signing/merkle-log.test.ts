import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leafHash, merkleTree, rootFromInclusionProof, verifyConsistencyProof } from './rfc6962-merkle.ts';
import { MerkleLog } from './merkle-log.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const leaves = (n: number) => Array.from({ length: n }, (_, i) => Buffer.from(`leaf-${i}`));
const logOf = (n: number) => {
  const log = new MerkleLog();
  for (const leaf of leaves(n)) log.append(leaf);
  return log;
};

describe('the growing RFC 6962 tree', () => {
  it('has the roots of the fixed-tree reference at every size, and the RFC empty root', () => {
    const log = new MerkleLog();
    expect(hex(log.root())).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    const all = leaves(70);
    for (let n = 1; n <= all.length; n++) {
      log.append(all[n - 1]!);
      expect(hex(log.root()), `size ${n}`).toBe(merkleTree(all.slice(0, n)).rootHex());
    }
    // Earlier roots stay reachable after growth.
    for (const n of [1, 2, 3, 7, 8, 33, 64]) expect(hex(log.root(n))).toBe(merkleTree(all.slice(0, n)).rootHex());
  });

  it('gives inclusion proofs that lead to the root of the tree they name, and only for that leaf', () => {
    const log = logOf(45);
    for (const size of [1, 2, 5, 16, 45])
      for (let i = 0; i < size; i++) {
        const proof = { leafIndex: i, treeSize: size, auditPath: log.inclusionProof(i, size).map(hex) };
        expect(rootFromInclusionProof(Buffer.from(`leaf-${i}`), proof)).toBe(hex(log.root(size)));
        if (size > 1) expect(rootFromInclusionProof(Buffer.from(`leaf-${(i + 1) % size}`), proof)).not.toBe(hex(log.root(size)));
      }
  });

  it('gives consistency proofs between any two sizes, and a changed step or root fails them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 90 }), fc.integer({ min: 0, max: 90 }), (first, extra) => {
        const second = Math.min(90, first + extra);
        const log = logOf(second);
        const proof = { firstSize: first, secondSize: second, path: log.consistencyProof(first, second).map(hex) };
        const [a, b] = [hex(log.root(first)), hex(log.root(second))];
        expect(verifyConsistencyProof(a, b, proof)).toBe(true);
        if (proof.path.length > 0) {
          const bent = { ...proof, path: proof.path.map((h, i) => (i === 0 ? `${h.slice(0, 63)}${h[63] === '0' ? '1' : '0'}` : h)) };
          expect(verifyConsistencyProof(a, b, bent)).toBe(false);
        }
        if (first < second) expect(verifyConsistencyProof(b, a, proof)).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('keeping no leaf hashes (the owner gives them again) changes no root and no proof', () => {
    const all = leaves(300);
    const asked: number[] = [];
    const lean = new MerkleLog((index) => {
      asked.push(index);
      return leafHash(all[index]!);
    });
    const full = logOf(300);
    for (const leaf of all) lean.append(leaf);
    expect(asked).toEqual([]);
    for (const size of [1, 2, 3, 64, 65, 255, 300]) {
      expect(hex(lean.root(size)), `root of ${size}`).toBe(hex(full.root(size)));
      for (const i of [0, 1, size >> 1, size - 1].filter((i) => i < size)) expect(lean.inclusionProof(i, size).map(hex), `leaf ${i} of ${size}`).toEqual(full.inclusionProof(i, size).map(hex));
      for (const first of [1, size >> 1, size - 1].filter((f) => f >= 1)) expect(lean.consistencyProof(first, size).map(hex)).toEqual(full.consistencyProof(first, size).map(hex));
    }
    expect(hex(lean.leafHashAt(299))).toBe(hex(full.leafHashAt(299)));
    expect(() => lean.leafHashAt(300)).toThrow(RangeError);
  });

  it('refuses sizes it does not hold', () => {
    const log = logOf(3);
    expect(() => log.root(4)).toThrow(RangeError);
    expect(() => log.inclusionProof(3, 3)).toThrow(RangeError);
    expect(() => log.consistencyProof(0, 3)).toThrow(RangeError);
  });
});
