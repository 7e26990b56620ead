import { codePointOffsets, uax29Segments } from '../../../kernel/uax29-segments.ts';
import { once } from '../../../kernel/once.ts';

/** Sentences and words by the Unicode rules (UAX #29 through Intl.Segmenter), offsets in code points. */
export interface Sentence {
  /** Verbatim, trimmed. */
  text: string;
  /** Code point offsets in the source text, end exclusive. */
  start: number;
  end: number;
  words: string[];
}

const STOPWORDS = new Set(
  'a an and are as at be been but by can could did do does for from had has have how i if in into is it its may might more most no not of on or our so such than that the their them then there these they this those to was we were what when where which while who why will with would you your'.split(' '),
);

// Made at first use: the first Intl object loads ICU's data (about 12 ms), and this module loads at every start.
const wordSegmenter = once(() => new Intl.Segmenter('und', { granularity: 'word' }));
const sentenceSegmenter = once(() => new Intl.Segmenter('und', { granularity: 'sentence' }));
const codePoints = (s: string) => Array.from(s).length;

/** Content words: word-like segments, NFKC, lower case, stopwords and one-letter words dropped. */
export function contentWords(text: string): string[] {
  return [...uax29Segments(wordSegmenter(), text.normalize('NFKC'))].filter((s) => s.isWordLike).map((s) => s.segment.toLowerCase()).filter((w) => w.length > 1 && !STOPWORDS.has(w));
}

/**
 * How many non-blank sentences the text holds, counting no further than `stopAbove` + 1: the
 * sentence segmenter alone, no words, so it is cheap enough to run before the quote.
 */
export function sentenceCountUpTo(text: string, stopAbove: number): number {
  let count = 0;
  for (const s of uax29Segments(sentenceSegmenter(), text)) {
    if (s.segment.trim() !== '' && ++count > stopAbove) break;
  }
  return count;
}

export function sentencesOf(text: string): Sentence[] {
  const out: Sentence[] = [];
  const offsetOf = codePointOffsets(text);
  for (const s of uax29Segments(sentenceSegmenter(), text)) {
    const trimmed = s.segment.trim();
    if (trimmed === '') continue;
    const lead = s.segment.indexOf(trimmed);
    const start = offsetOf(s.index + lead);
    out.push({ text: trimmed, start, end: start + codePoints(trimmed), words: contentWords(trimmed) });
  }
  return out;
}
