import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8, describeIllFormed, firstIllFormedOffset } from './rfc3629.ts';

const bytes = (...values: number[]) => Uint8Array.from(values);
const ascii = (text: string) => [...Buffer.from(text, 'latin1')];

describe('UTF-8 (RFC 3629)', () => {
  it('decodes well-formed text and drops a leading byte order mark', () => {
    expect(decodeUtf8(Buffer.from('{"x":"café 𝄞"}'))).toEqual({ ok: true, text: '{"x":"café 𝄞"}' });
    expect(decodeUtf8(bytes(0xef, 0xbb, 0xbf, ...ascii('{}')))).toEqual({ ok: true, text: '{}' });
  });

  it('names the offset of the first ill-formed sequence: Latin-1, surrogates, overlong forms, beyond U+10FFFF, cut short', () => {
    expect(decodeUtf8(bytes(...ascii('{"x":"caf'), 0xe9, ...ascii('"}')))).toEqual({ ok: false, offset: 9, byte: 0xe9 });
    expect(firstIllFormedOffset(bytes(0x61, 0xed, 0xa0, 0x80))).toBe(1); // U+D800
    expect(firstIllFormedOffset(bytes(0xc0, 0x80))).toBe(0); // overlong NUL
    expect(firstIllFormedOffset(bytes(0xe0, 0x9f, 0xbf))).toBe(0); // overlong U+07FF
    expect(firstIllFormedOffset(bytes(0xf4, 0x90, 0x80, 0x80))).toBe(0); // U+110000
    expect(firstIllFormedOffset(bytes(0x61, 0x62, 0xe2, 0x82))).toBe(2); // a euro sign cut short
    expect(firstIllFormedOffset(bytes(0x80))).toBe(0); // a lone continuation byte
    expect(describeIllFormed({ offset: 9, byte: 0xe9 })).toContain('the byte 0xE9 at offset 9');
  });

  it('agrees with the platform validator on any bytes, and everything before the offset is well formed', () => {
    // Bytes drawn mostly from the multi-byte ranges, where the rules are.
    const byte = fc.oneof(fc.integer({ min: 0x80, max: 0xff }), fc.integer({ min: 0, max: 0xff }));
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 24 }), (values) => {
        const input = Uint8Array.from(values);
        const offset = firstIllFormedOffset(input);
        expect(offset === input.length).toBe(isUtf8(input));
        expect(isUtf8(input.subarray(0, offset))).toBe(true);
        const decoded = decodeUtf8(input);
        expect(decoded.ok).toBe(isUtf8(input));
        if (!decoded.ok) expect(decoded.offset).toBe(offset);
      }),
      { numRuns: 20_000, seed: 20261127 },
    );
  });
});
