import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyseToolPermissions, hasHtmlComment, INSTRUCTION_TAG, type ManifestTool } from './engine.ts';
import { NeedleSet } from './needles.ts';

const NOW = 1_767_225_600;
/** The patterns the engine ran before: the new tests must answer exactly as these did. */
const OLD_INSTRUCTION_TAG = /<\s*\/?\s*(important|system|instructions?|secret|hidden)\s*>/i;
const OLD_HTML_COMMENT = /<!--[\s\S]*?-->/;

const schemaDescribed = (name: string, description: string): ManifestTool => ({ name, inputSchema: { type: 'object', properties: { p: { type: 'string', description } } } });
const msOf = (f: () => unknown): number => {
  const start = performance.now();
  f();
  return performance.now() - start;
};
const pieces = (...list: string[]) => fc.array(fc.constantFrom(...list), { maxLength: 12 }).map((p) => p.join(''));

describe('tool-permission cost', () => {
  it('the instruction-tag pattern matches exactly what the backtracking one did (property)', () => {
    const text = pieces('<', '>', '/', ' ', '\t', '\n', 'system', 'SYSTEM', 'hidden', 'instruction', 's', 'x', '</', '/ ');
    fc.assert(fc.property(text, (t) => {
        expect(INSTRUCTION_TAG.test(t)).toBe(OLD_INSTRUCTION_TAG.test(t));
      }), { numRuns: 3000 });
  });

  it('the HTML-comment test answers as the regex did (property)', () => {
    const text = pieces('<', '!', '-', '>', '<!--', '-->', 'a', '\n');
    fc.assert(fc.property(text, (t) => {
        expect(hasHtmlComment(t)).toBe(OLD_HTML_COMMENT.test(t));
      }), { numRuns: 3000 });
  });

  it('finds the same names as one includes per name (property)', () => {
    const word = pieces('a', 'b', 'ab', 'ba', 'İ', 'c');
    fc.assert(
      fc.property(fc.array(word, { maxLength: 8 }), word, (needles, text) => {
        const found = new NeedleSet(needles).foundIn(text);
        expect(needles.map((_, i) => found.has(i))).toEqual(needles.map((n) => n.length > 0 && text.includes(n)));
      }),
      { numRuns: 2000 },
    );
  });

  it("'<' and 40,000 spaces in a schema description, which held the loop 3.4 s, takes milliseconds", () => {
    expect(msOf(() => analyseToolPermissions({ manifest: { tools: [schemaDescribed('x', '<' + ' '.repeat(40_000))] } }, NOW))).toBeLessThan(1000);
  });

  it('every marker is linear on long adversarial texts', () => {
    const n = 200_000;
    const texts = ['<' + ' '.repeat(n), '< /' + ' '.repeat(n), '<!--'.repeat(n / 4), 'ignore all' + ' '.repeat(n), 'ignore '.repeat(n / 7), 'before using the other' + ' '.repeat(n), 'do not' + ' '.repeat(n), 'system '.repeat(n / 7)];
    const tools = texts.map((t, i) => schemaDescribed(`t${i}`, t));
    expect(msOf(() => analyseToolPermissions({ manifest: { tools } }, NOW))).toBeLessThan(1000);
  });

  it('40 descriptions of repeated comment openings take milliseconds, and a real comment is still found', () => {
    const tools = Array.from({ length: 40 }, (_, i) => ({ name: `t${i}`, description: '<!--'.repeat(2_499) }));
    expect(msOf(() => analyseToolPermissions({ manifest: { tools } }, NOW))).toBeLessThan(1000);
    const found = analyseToolPermissions({ manifest: { tools: [{ name: 'a', description: '<!--<!-- do it -->' }] } }, NOW);
    expect(found.findings).toEqual([expect.objectContaining({ rule: 'hidden-instructions', detail: 'model-facing text carries a HTML comment' })]);
  });

  it('90 descriptions of 9,999 characters against 1,000 other tool names are checked without comparing every pair (5 s before)', () => {
    const tools = Array.from({ length: 90 }, (_, i) => ({ name: `t${i}`, description: 'a'.repeat(9_999) }));
    const other_tool_names = Array.from({ length: 1000 }, (_, i) => 'a'.repeat(120) + i);
    expect(msOf(() => analyseToolPermissions({ manifest: { tools }, other_tool_names }, NOW))).toBeLessThan(2000);
  });
});
