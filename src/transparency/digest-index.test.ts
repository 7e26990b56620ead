import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DigestIndex } from './digest-index.ts';

const digestOf = (n: number) => createHash('sha256').update(String(n)).digest();

describe('DigestIndex', () => {
  it('finds the first leaf of every digest across growth, and nothing for an unknown digest', () => {
    const digests: Buffer[] = [];
    const index = new DigestIndex((leaf, digest) => digests[leaf]!.equals(digest), (leaf) => digests[leaf]!);
    for (let leaf = 0; leaf < 5_000; leaf++) {
      // Every tenth leaf repeats the result of the leaf before it.
      digests.push(leaf % 10 === 9 ? digests[leaf - 1]! : digestOf(leaf));
      index.add(digests[leaf]!, leaf);
    }
    expect(index.find(digestOf(1234))).toBe(1234);
    expect(index.find(digests[9]!)).toBe(8);
    expect(index.find(digestOf(-1))).toBeUndefined();
  });

  it('keeps apart two digests that share their first bits (the same slot)', () => {
    const a = digestOf(1);
    const b = Buffer.from(a);
    b[31] = b[31]! ^ 0xff;
    const digests = [a, b];
    const index = new DigestIndex((leaf, digest) => digests[leaf]!.equals(digest), (leaf) => digests[leaf]!);
    index.add(a, 0);
    index.add(b, 1);
    expect(index.find(a)).toBe(0);
    expect(index.find(b)).toBe(1);
  });
});
