import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bindEvidenceReceipt, merkleRoot, normaliseEntryIds } from './engine.ts';
import { evidenceQueryInputSchema } from './input.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { canonicalBytes, canonicalText } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';

const id = (n: number) => n.toString(16).padStart(64, '0');
const store = new Map<string, JsonObject>([1, 2, 3, 4, 5].map((n) => [id(n), { kind: 'evidence.entry', entryId: id(n), sealedAt: n }]));
const lookup = (entryId: string) => store.get(entryId);
const sha = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

describe('evidence receipt engine', () => {
  it('binds found entries in id order with the SHA-256 of each sealed record: BOUND', () => {
    const receipt = bindEvidenceReceipt([id(3), id(1)], lookup);
    expect(receipt.outcome).toBe('BOUND');
    expect(receipt.entries).toEqual([
      { entryId: id(1), sha256: canonicalSha256(store.get(id(1))) },
      { entryId: id(3), sha256: canonicalSha256(store.get(id(3))) },
    ]);
    expect(receipt.not_found).toEqual([]);
    expect(receipt.requested_count).toBe(2);
    expect(receipt.found_count).toBe(2);
  });

  it('lists unknown ids as NOT-FOUND: PARTIAL when some exist, NOT-FOUND when none do', () => {
    const partial = bindEvidenceReceipt([id(9), id(1)], lookup);
    expect(partial.outcome).toBe('PARTIAL');
    expect(partial.not_found).toEqual([id(9)]);
    const none = bindEvidenceReceipt([id(9), id(8)], lookup);
    expect(none.outcome).toBe('NOT-FOUND');
    expect(none.not_found).toEqual([id(8), id(9)]);
    expect(none.merkle_root).toBeNull();
  });

  it('holds no timestamp', () => {
    expect(canonicalText(bindEvidenceReceipt([id(1)], lookup))).not.toMatch(/At"/);
  });

  it('computes the documented Merkle tree (domain-separated, odd node promoted)', () => {
    const [a, b, c] = ['aa', 'bb', 'cc'].map((x) => x.repeat(32));
    const leaf = (d: string) => sha(Buffer.from([0]), Buffer.from(d, 'hex'));
    const node = (l: Buffer, r: Buffer) => sha(Buffer.from([1]), l, r);
    expect(merkleRoot([])).toBeNull();
    expect(merkleRoot([a!])).toBe(leaf(a!).toString('hex'));
    expect(merkleRoot([a!, b!, c!])).toBe(node(node(leaf(a!), leaf(b!)), leaf(c!)).toString('hex'));
    // Duplicating the last leaf must not reproduce the root of the shorter list.
    expect(merkleRoot([a!, b!, c!, c!])).not.toBe(merkleRoot([a!, b!, c!]));
  });

  it('deduplicates and sorts ids', () => {
    expect(normaliseEntryIds([id(2), id(1), id(2)])).toEqual([id(1), id(2)]);
  });

  it('refuses an empty list, a malformed id, or too many ids with the field named', () => {
    for (const entryIds of [[], ['xyz'], Array.from({ length: 257 }, (_, i) => id(i))]) {
      const parsed = evidenceQueryInputSchema.safeParse({ entryIds });
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues[0]!.path[0]).toBe('entryIds');
    }
  });

  it('gives byte-identical receipts for the same set in any order, with duplicates (property)', () => {
    const listAndPermutation = fc
      .array(fc.integer({ min: 1, max: 12 }).map(id), { minLength: 1, maxLength: 20 })
      .chain((list) => fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length }), fc.subarray(list)));
    fc.assert(
      fc.property(listAndPermutation, ([list, permuted, duplicates]) => {
        const a = canonicalBytes(bindEvidenceReceipt(list, lookup));
        const b = canonicalBytes(bindEvidenceReceipt([...permuted, ...duplicates], lookup));
        expect(b.equals(a)).toBe(true);
      }),
    );
  });
});
