import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointOffsets, SEGMENTER_WINDOW, uax29Segments } from './uax29-segments.ts';

const words = new Intl.Segmenter('en', { granularity: 'word' });
const sentences = new Intl.Segmenter('en', { granularity: 'sentence' });
const whole = (segmenter: Intl.Segmenter, text: string) => [...segmenter.segment(text)].map((s) => ({ segment: s.segment, index: s.index, isWordLike: s.isWordLike }));

const prose = Array.from({ length: 400 }, (_, i) => `Sentence ${i} says “quoted” things, e.g. 3.14 and U.S.A. rules; naïve café 😀 ${'x'.repeat(i % 7)}!`).join(' ');

describe('UAX #29 segments a window at a time', () => {
  it('are the segments of the whole text, words and sentences, across many windows', () => {
    expect(prose.length).toBeGreaterThan(10 * SEGMENTER_WINDOW);
    expect([...uax29Segments(words, prose)]).toEqual(whole(words, prose));
    expect([...uax29Segments(sentences, prose)]).toEqual(whole(sentences, prose));
  });

  it('cut a segment longer than a window at the window, never inside a surrogate pair', () => {
    const emoji = '😀'.repeat(SEGMENTER_WINDOW);
    const parts = [...uax29Segments(sentences, emoji)];
    expect(parts.map((p) => p.segment).join('')).toBe(emoji);
    for (const part of parts) expect(part.segment).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
  });

  // V8 takes time in the square of the segments of one call: 140,000 words took 36 s.
  it('find 140,000 words in one pass', () => {
    const text = 'Ab cd. '.repeat(70_000);
    expect([...uax29Segments(words, text)].filter((s) => s.isWordLike)).toHaveLength(140_000);
  }, 20_000);
});

describe('code-point offsets counted on', () => {
  it('count a surrogate pair once, asked in order or not', () => {
    const text = 'a😀b😀😀c';
    const offsetOf = codePointOffsets(text);
    expect([0, 1, 3, 4, 8, 9].map(offsetOf)).toEqual([0, 1, 2, 3, 5, 6]);
    expect(offsetOf(3)).toBe(2);
  });

  it('answer as counting from the start would, for any text and any order of questions', () => {
    const fromStart = (text: string, utf16: number): number => {
      let points = 0;
      for (let i = 0; i < utf16; i++) {
        const pair = (text.charCodeAt(i) & 0xfc00) === 0xd800 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
        if (!pair) points++;
      }
      return points;
    };
    const unit = fc.constantFrom('a', '😀', '\ud800', '\udc00', 'é');
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 30 }).map((units) => units.join('')), fc.array(fc.nat(), { maxLength: 20 }), (text, asks) => {
        const offsetOf = codePointOffsets(text);
        for (const ask of asks) {
          const utf16 = ask % (text.length + 1);
          expect(offsetOf(utf16)).toBe(fromStart(text, utf16));
        }
      }),
      { numRuns: 500 },
    );
  });
});
