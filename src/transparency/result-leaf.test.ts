import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leafHash } from '../signing/rfc6962-merkle.ts';
import { canonicalBytes } from '../signing/rfc8785.ts';
import { resultLeafBytes, resultLeafHash } from './result-leaf.ts';

describe('the result leaf', () => {
  const leaves = [
    { key_family: 'veritrack', key_id: 'a1b2c3d4e5f60718', sha256: 'ab'.repeat(32) },
    { key_family: 'fåmily "quoted" \\ back\nslash', key_id: '\u0001\u001f\u007f\u2028', sha256: '😀 é ü' },
    { key_family: '', key_id: '', sha256: '' },
  ];

  it.each(leaves)('is the RFC 8785 form of the leaf (%#)', (leaf) => {
    expect(resultLeafBytes(leaf).equals(canonicalBytes(leaf))).toBe(true);
  });

  it('leaves out members the leaf does not commit to and keeps the canonical order', () => {
    const leaf = { sha256: 'cd'.repeat(32), key_id: 'k1', key_family: 'log', extra: 'x' };
    expect(resultLeafBytes(leaf).toString()).toBe(`{"key_family":"log","key_id":"k1","sha256":"${'cd'.repeat(32)}"}`);
  });

  it('hashes as an RFC 6962 leaf of those bytes, whatever the strings hold', () => {
    for (const leaf of leaves) expect(Buffer.from(resultLeafHash(leaf)).equals(leafHash(resultLeafBytes(leaf)))).toBe(true);
    const text = fc.string({ unit: fc.oneof(fc.constantFrom('\ud800', '\udfff', '\u0000', '"', '\\', '😀'), fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c))) });
    fc.assert(
      fc.property(text, text, text, (key_family, key_id, sha256) => {
        const leaf = { key_family, key_id, sha256 };
        return Buffer.from(resultLeafHash(leaf)).equals(leafHash(resultLeafBytes(leaf)));
      }),
      { numRuns: 2000 },
    );
  });
});
