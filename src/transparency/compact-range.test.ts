import { describe, expect, it } from 'vitest';
import { leafHash, merkleTree } from '../signing/rfc6962-merkle.ts';
import { CompactRange } from './compact-range.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const leaves = Array.from({ length: 70 }, (_, i) => Buffer.from(`leaf-${i}`));

describe('the compact range of an RFC 6962 tree', () => {
  it('gives the root of the reference tree at every size, and the RFC empty root', () => {
    const range = CompactRange.empty();
    expect(hex(range.root())).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    for (let n = 1; n <= leaves.length; n++) {
      range.append(leafHash(leaves[n - 1]!));
      expect(range.size).toBe(n);
      expect(hex(range.root()), `size ${n}`).toBe(merkleTree(leaves.slice(0, n)).rootHex());
    }
  });

  it('a copy grows apart from the range it was copied from', () => {
    const range = CompactRange.empty();
    for (const leaf of leaves.slice(0, 5)) range.append(leafHash(leaf));
    const copy = range.copy();
    for (const leaf of leaves.slice(5, 9)) copy.append(leafHash(leaf));
    expect(hex(range.root())).toBe(merkleTree(leaves.slice(0, 5)).rootHex());
    expect(hex(copy.root())).toBe(merkleTree(leaves.slice(0, 9)).rootHex());
  });
});
