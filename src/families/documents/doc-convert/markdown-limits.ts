/**
 * Shapes of Markdown that cost the parser (micromark 4, through mdast) time that grows with the
 * square of their count, found before the quote by one pass over the text. Measured at 50,000
 * characters: `- - - ...` (a list in a list, on one line) more than a minute, `*a*a*a...` nine
 * seconds, and 90,000 nested block quotes overflowed the stack after 55 seconds; all while the
 * event loop that answers every other call waited. Documents keep far below these limits.
 * Counting, not a time limit: the answer must be the same when a paid call is replayed.
 */
export const MAX_MARKDOWN_NESTING = 32;
export const MAX_EMPHASIS_MARKS = 4_000;
/**
 * Block quotes, lines a block quote or a list item continues lazily (without `>`, or without the
 * item's indentation), setext heading underlines (quadratic in micromark 4: 6,666 block quotes
 * took 8.5 s, 8,000 setext headings 17 s, a list item continued by 20,000 lazy lines, 40,004
 * characters, 71 s) and link openings `](` (25,000 took 4 s): each at most this many.
 */
export const MAX_COSTLY_CONSTRUCTS = 1_000;
export const MAX_LINK_OPENINGS = 2_000;
/** Lines that open list items or block quotes: 14,285 list items each holding a quote took 64 s. */
export const MAX_CONTAINER_LINES = 2_000;

const AS_TEXT = 'send it with from "text" to keep it as plain paragraphs';

/** What makes this Markdown too costly to parse, or undefined. */
export function markdownShapeProblem(markdown: string): string | undefined {
  const lines = markdown.split('\n');
  const nesting = containerNesting(lines);
  if (nesting.lines > MAX_CONTAINER_LINES) return `${nesting.lines} lines open list items or block quotes; at most ${MAX_CONTAINER_LINES} are read (${AS_TEXT})`;
  if (nesting.depth > MAX_MARKDOWN_NESTING) return `line ${nesting.line} opens ${nesting.depth} block quotes or list items inside each other; at most ${MAX_MARKDOWN_NESTING} are read (${AS_TEXT})`;
  const marks = emphasisMarks(lines);
  if (marks > MAX_EMPHASIS_MARKS) return `the text has ${marks} emphasis marks (* and _ outside code); at most ${MAX_EMPHASIS_MARKS} are read (${AS_TEXT})`;
  const kinds = lineKinds(lines);
  for (const [count, what] of [[kinds.quotes, 'block quotes'], [kinds.lazy, 'lines continuing a block quote without > or a list item without its indentation'], [kinds.setext, 'setext heading underlines (= or - lines)']] as const)
    if (count > MAX_COSTLY_CONSTRUCTS) return `the text has ${count} ${what}; at most ${MAX_COSTLY_CONSTRUCTS} are read (${AS_TEXT})`;
  const links = markdown.split('](').length - 1;
  if (links > MAX_LINK_OPENINGS) return `the text has ${links} link destinations ("](" ); at most ${MAX_LINK_OPENINGS} are read (${AS_TEXT})`;
  return undefined;
}

const LIST_ITEM = /^ {0,3}(?:[-+*]|\d{1,9}[.)])[ \t]+\S/;

/**
 * Block quotes begun, lines a quote's or a list item's paragraph continues lazily (without `>`,
 * or indented less than the item's text), and setext underlines.
 */
function lineKinds(lines: readonly string[]): { quotes: number; lazy: number; setext: number } {
  const counts = { quotes: 0, lazy: 0, setext: 0 };
  let previous = 'blank' as 'blank' | 'quote' | 'item' | 'lazy' | 'other';
  /** The paragraph being continued: a block quote's, a list item's (its text from `itemIndent` on), or none. */
  let within: 'none' | 'quote' | 'item' = 'none';
  let itemIndent = 0;
  for (const line of lines) {
    let kind: typeof previous;
    if (line.trim() === '') [kind, within] = ['blank', 'none'];
    else if (/^ {0,3}>/.test(line)) [kind, within] = ['quote', 'quote'];
    else if (LIST_ITEM.test(line)) {
      [kind, within] = ['item', 'item'];
      itemIndent = line.length - line.replace(/^ {0,3}(?:[-+*]|\d{1,9}[.)])[ \t]+/, '').length;
    } else if (within === 'quote' || (within === 'item' && line.length - line.trimStart().length < itemIndent)) kind = 'lazy';
    else kind = 'other';
    if (kind === 'quote' && previous !== 'quote' && previous !== 'lazy') counts.quotes++;
    if (kind === 'lazy') counts.lazy++;
    if (previous !== 'blank' && /^ {0,3}(?:=+|-+)[ \t]*$/.test(line)) counts.setext++;
    previous = kind;
  }
  return counts;
}

/**
 * The most block quote markers and list item markers a line opens, one inside the other, and
 * that line (indentation counts too: a list item indented under another is one level deeper);
 * and how many lines open any.
 */
function containerNesting(lines: readonly string[]): { depth: number; line: number; lines: number } {
  let deepest = { depth: 0, line: 0 };
  let opening = 0;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    let depth = 0;
    let at = 0;
    for (;;) {
      let indent = 0;
      while (at < line.length && (line[at] === ' ' || line[at] === '\t')) indent += line[at++] === '\t' ? 4 : 1;
      // Every two columns of indentation before a marker may nest it under an item above.
      const marker = containerMarkerAt(line, at);
      if (marker === 0) break;
      depth += 1 + Math.floor(indent / 2);
      at += marker;
    }
    if (depth > 0) opening++;
    if (depth > deepest.depth) deepest = { depth, line: n + 1 };
  }
  return { ...deepest, lines: opening };
}

/** The length of a block quote marker (`>`) or list item marker (`-`, `*`, `+`, `1.`, `1)`) and the space after it at `at`, or 0. */
function containerMarkerAt(line: string, at: number): number {
  const c = line[at];
  if (c === '>') return 1;
  const spaceAt = (i: number) => i >= line.length || line[i] === ' ' || line[i] === '\t';
  if ((c === '-' || c === '*' || c === '+') && spaceAt(at + 1)) return 1;
  let digits = 0;
  while (digits < 10 && line[at + digits]! >= '0' && line[at + digits]! <= '9') digits++;
  if (digits > 0 && digits <= 9 && (line[at + digits] === '.' || line[at + digits] === ')') && spaceAt(at + digits + 1)) return digits + 1;
  return 0;
}

/** `*` and `_` characters outside code spans and fenced code: each may open or close emphasis. */
function emphasisMarks(lines: readonly string[]): number {
  let marks = 0;
  let fenced = false;
  for (const line of lines) {
    if (/^ {0,3}(?:```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    // Code spans: text between backticks is not emphasis.
    const outsideCode = line.split('`').filter((_, i) => i % 2 === 0);
    for (const part of outsideCode) for (let i = 0; i < part.length; i++) if (part[i] === '*' || part[i] === '_') marks++;
  }
  return marks;
}
