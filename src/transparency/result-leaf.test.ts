import { describe, expect, it } from 'vitest';
import { canonicalBytes } from '../signing/rfc8785.ts';
import { resultLeafBytes } from './result-leaf.ts';

describe('resultLeafBytes', () => {
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
});
