/**
 * Shapes of Markdown that cost the parser (micromark, through mdast) time that grows with the
 * square of the text, found before the quote by one pass over it. Measured at 50,000
 * characters: `- - - ...` (a list in a list, on one line) more than a minute, `*a*a*a...` nine
 * seconds, and 90,000 nested block quotes overflowed the stack after 55 seconds; all while the
 * event loop that answers every other call waited. Documents keep far below both limits.
 */
export const MAX_MARKDOWN_NESTING = 32;
export const MAX_EMPHASIS_MARKS = 4_000;

/** What makes this Markdown too costly to parse, or undefined. */
export function markdownShapeProblem(markdown: string): string | undefined {
  const nesting = deepestContainerNesting(markdown);
  if (nesting.depth > MAX_MARKDOWN_NESTING)
    return `line ${nesting.line} opens ${nesting.depth} block quotes or list items inside each other; at most ${MAX_MARKDOWN_NESTING} are read (send it with from "text" to keep it as plain paragraphs)`;
  const marks = emphasisMarks(markdown);
  if (marks > MAX_EMPHASIS_MARKS)
    return `the text has ${marks} emphasis marks (* and _ outside code); at most ${MAX_EMPHASIS_MARKS} are read (send it with from "text" to keep it as plain paragraphs)`;
  return undefined;
}

/**
 * The most block quote markers and list item markers a line opens, one inside the other, and
 * that line. Indentation counts too: a list item indented under another is one level deeper.
 */
function deepestContainerNesting(markdown: string): { depth: number; line: number } {
  let deepest = { depth: 0, line: 0 };
  const lines = markdown.split('\n');
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
    if (depth > deepest.depth) deepest = { depth, line: n + 1 };
  }
  return deepest;
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
function emphasisMarks(markdown: string): number {
  let marks = 0;
  let fenced = false;
  for (const line of markdown.split('\n')) {
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
