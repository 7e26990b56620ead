import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shortened, sliceWholeCharacters } from './whole-characters.ts';

/** encodeURIComponent throws on a lone surrogate. */
const wellFormed = (text: string): boolean => {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
};

describe('cutting text on whole characters', () => {
  it('never leaves a lone surrogate, and keeps as much as fits', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.nat(60), (text, units) => {
        const cut = sliceWholeCharacters(text, units);
        expect(wellFormed(cut)).toBe(true);
        expect(text.startsWith(cut)).toBe(true);
        expect(cut.length).toBe(Math.min(text.length, units) - (cut.length < Math.min(text.length, units) ? 1 : 0));
        const short = shortened(text, Math.max(units, 3));
        expect(wellFormed(short)).toBe(true);
        expect(short.length).toBeLessThanOrEqual(Math.max(units, 3, text.length <= Math.max(units, 3) ? text.length : 0));
      }),
      { numRuns: 500 },
    );
    expect(sliceWholeCharacters('ab😀', 3)).toBe('ab');
    expect(shortened('😀'.repeat(100), 10)).toBe(`${'😀'.repeat(3)}...`);
  });
});
