import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leafHash, merkleTree, nodeHash, rootFromInclusionProof, splitPoint } from './rfc6962-merkle.ts';

const bytes = (s: string) => Buffer.from(s, 'utf8');

describe('RFC 6962 Merkle tree', () => {
  it('hashes the empty tree, one leaf and three leaves as the RFC defines', () => {
    expect(merkleTree([]).rootHex()).toBe(createHash('sha256').digest('hex'));
    expect(merkleTree([bytes('a')]).rootHex()).toBe(leafHash(bytes('a')).toString('hex'));
    const [a, b, c] = ['a', 'b', 'c'].map((s) => leafHash(bytes(s)));
    expect(merkleTree(['a', 'b', 'c'].map(bytes)).rootHex()).toBe(nodeHash(nodeHash(a!, b!), c!).toString('hex'));
    expect([2, 3, 4, 5, 8, 9].map(splitPoint)).toEqual([1, 2, 2, 4, 4, 8]);
  });

  it('matches the RFC 6962 test vector of the empty leaf', () => {
    // Certificate Transparency's reference: the hash of a tree holding one empty leaf.
    expect(merkleTree([new Uint8Array()]).rootHex()).toBe('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
  });

  it('every inclusion proof leads to the root, and a modified leaf or path does not', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 40 }), fc.nat(), (items, pick) => {
        const tree = merkleTree(items.map(bytes));
        const root = tree.rootHex();
        for (let i = 0; i < items.length; i++) expect(rootFromInclusionProof(bytes(items[i]!), tree.proof(i))).toBe(root);
        const i = pick % items.length;
        expect(rootFromInclusionProof(bytes(`${items[i]}x`), tree.proof(i))).not.toBe(root);
        const proof = tree.proof(i);
        if (proof.auditPath.length > 0) {
          const tampered = { ...proof, auditPath: [proof.auditPath[0]!.replace(/^./, (c) => (c === '0' ? '1' : '0')), ...proof.auditPath.slice(1)] };
          expect(rootFromInclusionProof(bytes(items[i]!), tampered)).not.toBe(root);
        }
      }),
      { numRuns: 100 },
    );
  });

  it('rejects proofs whose shape cannot fit the tree size', () => {
    const tree = merkleTree(['a', 'b', 'c', 'd', 'e'].map(bytes));
    const proof = tree.proof(2);
    expect(rootFromInclusionProof(bytes('c'), { ...proof, auditPath: proof.auditPath.slice(1) })).toBeUndefined();
    expect(rootFromInclusionProof(bytes('c'), { ...proof, leafIndex: 5 })).toBeUndefined();
    expect(rootFromInclusionProof(bytes('c'), { ...proof, auditPath: [...proof.auditPath, proof.auditPath[0]!] })).toBeUndefined();
    expect(() => tree.proof(5)).toThrow(RangeError);
  });
});
