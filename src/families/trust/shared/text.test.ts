import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clipText } from './text.ts';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('clipText', () => {
  it('never leaves half of a surrogate pair at the cut', () => {
    const clipped = clipText(`a${'😀'.repeat(100)}`, 160);
    expect(clipped).not.toMatch(LONE_SURROGATE);
    expect(clipped).toBe(`a${'😀'.repeat(78)}...`);
  });

  it('keeps short text as it is, and cuts long text to at most max units, a well-formed prefix plus the marker', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 120 }), fc.integer({ min: 3, max: 80 }), (text, max) => {
        const clipped = clipText(text, max);
        if (text.length <= max) {
          expect(clipped).toBe(text);
          return;
        }
        expect(clipped.length).toBeLessThanOrEqual(max);
        expect(clipped.length).toBeGreaterThanOrEqual(max - 1);
        expect(clipped.endsWith('...')).toBe(true);
        expect(text.startsWith(clipped.slice(0, -3))).toBe(true);
        expect(clipped).not.toMatch(LONE_SURROGATE);
      }),
    );
  });
});
