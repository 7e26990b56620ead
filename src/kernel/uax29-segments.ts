/** The widest stretch of text handed to Intl.Segmenter at once. */
export const SEGMENTER_WINDOW = 2_000;
/** How far past a boundary the rules may look (a number's digits, marks after a letter): boundaries closer to a window's end wait for the next window. */
const BOUNDARY_CONTEXT = 64;

/** One segment, its UTF-16 offset in the whole text, and for words whether it is word-like. */
export interface TextSegment {
  segment: string;
  index: number;
  isWordLike: boolean | undefined;
}

/**
 * The segments of `text` by the Unicode rules (UAX #29, Intl.Segmenter), found a window of
 * SEGMENTER_WINDOW characters at a time. V8's segmenter takes time in the square of the segments
 * it is given at once: 140,000 words took 36 s, 28,000 sentences 7 s, and 100,000 words ran a
 * process out of memory. The segments that end near a window's end may run on past it, so they
 * are segmented again at the start of the next window; a single segment longer than a window (a
 * sentence of more than 2,000 characters) is cut at the window's end. The rules decide a boundary
 * from the characters around it, so the segments are those of the whole text but for that cut.
 */
export function* uax29Segments(segmenter: Intl.Segmenter, text: string): Generator<TextSegment> {
  let from = 0;
  while (from < text.length) {
    let end = Math.min(text.length, from + SEGMENTER_WINDOW);
    // Never between the two halves of a surrogate pair.
    if (end < text.length && (text.charCodeAt(end - 1) & 0xfc00) === 0xd800) end--;
    const found = [...segmenter.segment(text.slice(from, end))];
    // Boundaries near the window's end may depend on what follows it ("3." before "14"): kept
    // only those at least BOUNDARY_CONTEXT before it, the rest segmented again next window.
    const settled = found.filter((s) => s.index + s.segment.length <= end - from - BOUNDARY_CONTEXT);
    const kept = end === text.length ? found : settled.length > 0 ? settled : found.slice(0, 1);
    for (const s of kept) yield { segment: s.segment, index: from + s.index, isWordLike: s.isWordLike };
    from += kept.reduce((length, s) => length + s.segment.length, 0);
  }
}

/**
 * Code-point offsets of UTF-16 offsets, each counted on (or back) from the last one asked:
 * counting from the start of the text for every segment, span or heading was quadratic (a
 * 500,000-character invoice of one-line items took minutes).
 */
export function codePointOffsets(text: string): (utf16: number) => number {
  // A high surrogate followed by a low one is one code point: counted at the low.
  const startsPair = (i: number): boolean => (text.charCodeAt(i) & 0xfc00) === 0xd800 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
  let at = 0;
  let points = 0;
  return (utf16) => {
    for (; at < utf16; at++) if (!startsPair(at)) points++;
    while (at > utf16) if (!startsPair(--at)) points--;
    return points;
  };
}
