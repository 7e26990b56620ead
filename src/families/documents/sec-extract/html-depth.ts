/**
 * htmlparser2 keeps the open elements in an array it unshifts for every start tag, so a document
 * of elements opened inside each other costs time in the square of their depth: 200,000 nested
 * `<div>` (1,000,000 characters) held the event loop for 7 s. Filings nest a few dozen levels;
 * even old ones whose `<font>` tags are never closed stay far below this.
 */
export const MAX_HTML_NESTING = 10_000;
/**
 * Inline XBRL facts inside each other: each holds the text of all those inside it, so their
 * memory grows with the square of their depth (9,000 nested ix:nonNumeric, 400,000 characters,
 * took 1.7 GB). A text block holding a table of facts is two or three deep.
 */
export const MAX_FACT_NESTING = 16;
const FACT_ELEMENTS = new Set(['ix:nonnumeric', 'ix:nonfraction']);

/** Elements the HTML parser never keeps open (void) or closes when a sibling opens (implied end tags). */
const NEVER_NESTED = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr', 'p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'option', 'optgroup', 'thead', 'tbody', 'tfoot', 'rb', 'rt', 'rp']);

// Attributes stop at the next '<' as well as '>': each try reads no further than the next tag, so
// the pass stays linear however many unterminated '<a' a document holds.
const TAG = /<(\/?)([A-Za-z][A-Za-z0-9:-]*)([^<>]*)>/g;

/**
 * How deep start tags nest in the document, counted as the parser keeps them open (start tags
 * less end tags, self-closed, void and implied-end elements left out): one pass, no tree built.
 */
export function htmlNestingDepth(html: string): { elements: number; facts: number } {
  let depth = 0;
  let deepest = 0;
  let facts = 0;
  let deepestFacts = 0;
  for (const [, closing, name, attributes] of html.matchAll(TAG)) {
    const lower = name!.toLowerCase();
    if (NEVER_NESTED.has(lower) || attributes!.endsWith('/')) continue;
    const fact = FACT_ELEMENTS.has(lower);
    if (closing) {
      depth = Math.max(0, depth - 1);
      if (fact) facts = Math.max(0, facts - 1);
    } else {
      deepest = Math.max(deepest, ++depth);
      if (fact) deepestFacts = Math.max(deepestFacts, ++facts);
    }
  }
  return { elements: deepest, facts: deepestFacts };
}
