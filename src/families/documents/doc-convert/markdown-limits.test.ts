import { describe, expect, it } from 'vitest';
import { MAX_CONTAINER_LINES, MAX_COSTLY_CONSTRUCTS, MAX_EMPHASIS_MARKS, MAX_LINK_OPENINGS, MAX_MARKDOWN_NESTING, markdownShapeProblem } from './markdown-limits.ts';

describe('Markdown shapes refused before the quote', () => {
  it('passes ordinary documents: nested lists and quotes a few levels deep, bold and italics, snake_case in code', () => {
    const doc = ['# Title', '', '> quote', '> > nested', '', '- a', '  - b', '    1. c', '       - d', '', 'Some **bold**, _italic_ and `snake_case_name` text.', '', '```', 'a_b_c * d * e', '```'].join('\n');
    expect(markdownShapeProblem(doc)).toBeUndefined();
    expect(markdownShapeProblem('- '.repeat(MAX_MARKDOWN_NESTING) + 'x')).toBeUndefined();
    expect(markdownShapeProblem('*a* '.repeat(MAX_EMPHASIS_MARKS / 2))).toBeUndefined();
  });

  it('refuses list items or block quotes nested deeper than the limit, on one line or by indentation, naming the line', () => {
    expect(markdownShapeProblem('intro\n' + '- '.repeat(MAX_MARKDOWN_NESTING + 1) + 'x')).toMatch(/^line 2 opens 33 block quotes or list items/);
    expect(markdownShapeProblem('>'.repeat(90_000) + ' x')).toMatch(/opens 90000 block quotes/);
    expect(markdownShapeProblem('> 1. '.repeat(20) + 'x')).toMatch(/opens 40 /);
    const indented = Array.from({ length: 40 }, (_, i) => ' '.repeat(2 * i) + '- x').join('\n');
    expect(markdownShapeProblem(indented)).toMatch(/^line \d+ opens \d+ block quotes or list items/);
  });

  it('refuses more emphasis marks than the limit, and does not count those in code', () => {
    expect(markdownShapeProblem('*a'.repeat(MAX_EMPHASIS_MARKS + 1))).toMatch(/4001 emphasis marks/);
    expect(markdownShapeProblem('`' + '*a'.repeat(MAX_EMPHASIS_MARKS + 1) + '`')).toBeUndefined();
    expect(markdownShapeProblem('```\n' + '*a'.repeat(MAX_EMPHASIS_MARKS + 1) + '\n```')).toBeUndefined();
  });
});

describe('Markdown constructs micromark takes quadratic time over, counted', () => {
  const over = (unit: string, limit: number) => unit.repeat(limit + 1);
  it('refuses more block quotes, lazy quote lines, setext underlines, link destinations or container lines than the limits', () => {
    expect(markdownShapeProblem(over('> a\n\n', MAX_COSTLY_CONSTRUCTS))).toMatch(/1001 block quotes/);
    expect(markdownShapeProblem('> a\n' + 'b\n'.repeat(MAX_COSTLY_CONSTRUCTS + 1))).toMatch(/1001 lines continuing a block quote/);
    expect(markdownShapeProblem(over('a\n=\n\n', MAX_COSTLY_CONSTRUCTS))).toMatch(/1001 setext heading underlines/);
    expect(markdownShapeProblem(over('[a](', MAX_LINK_OPENINGS))).toMatch(/2001 link destinations/);
    expect(markdownShapeProblem(over('- a\n', MAX_CONTAINER_LINES))).toMatch(/^2001 lines open list items or block quotes/);
  });

  it('refuses a list item continued by more lazy lines than the limit (20,000 took 71 s), and passes one continued with its indentation', () => {
    for (const opener of ['- a\n', '12. a\n', '- a\n  indented\n'])
      expect(markdownShapeProblem(opener + 'x\n'.repeat(MAX_COSTLY_CONSTRUCTS + 1)), opener).toMatch(/1001 lines continuing a block quote without > or a list item without its indentation/);
    expect(markdownShapeProblem('- a\n' + '  x\n'.repeat(20_000))).toBeUndefined();
    expect(markdownShapeProblem('1. a\n' + '   x\n'.repeat(20_000))).toBeUndefined();
    expect(markdownShapeProblem(('- a\n' + 'x\n'.repeat(MAX_COSTLY_CONSTRUCTS / 10) + '\n').repeat(10))).toBeUndefined();
  });

  it('passes each at its limit', () => {
    for (const text of ['> a\n\n'.repeat(MAX_COSTLY_CONSTRUCTS), 'a\n=\n\n'.repeat(MAX_COSTLY_CONSTRUCTS), '[a]('.repeat(MAX_LINK_OPENINGS), '- a\n'.repeat(MAX_CONTAINER_LINES)]) expect(markdownShapeProblem(text)).toBeUndefined();
  });
});
