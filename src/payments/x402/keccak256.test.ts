import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keccak256, nobleKeccak256 } from './keccak256.ts';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('Keccak-256 (WebAssembly, @noble/hashes where it cannot run)', () => {
  it("gives Ethereum's Keccak-256 of known inputs, not SHA3-256", () => {
    expect(hex(keccak256(new Uint8Array(0)))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(hex(keccak256(Buffer.from('Transfer(address,address,uint256)')))).toBe('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');
    expect(keccak256).not.toBe(nobleKeccak256);
  });

  it('gives the same bytes as @noble/hashes for any input, across the rate boundary of 136 bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.nat({ max: 40 }), (bytes, offset) => {
        expect(hex(keccak256(bytes))).toBe(hex(nobleKeccak256(bytes)));
        // A view into a larger buffer, as the recovered key's subarray(1) is.
        const view = Buffer.concat([randomBytes(offset), bytes, randomBytes(3)]).subarray(offset, offset + bytes.length);
        expect(hex(keccak256(view))).toBe(hex(nobleKeccak256(bytes)));
      }),
      { numRuns: 500 },
    );
    for (const length of [135, 136, 137, 271, 272, 273]) {
      const bytes = randomBytes(length);
      expect(hex(keccak256(bytes)), String(length)).toBe(hex(nobleKeccak256(bytes)));
    }
  });

  it('returns a digest of its own: the next hash does not change one already returned', () => {
    const first = keccak256(Buffer.from('first'));
    const kept = hex(first);
    keccak256(Buffer.from('second'));
    expect(hex(first)).toBe(kept);
  });
});
