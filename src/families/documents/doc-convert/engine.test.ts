import { unzipSync, strFromU8 } from 'fflate';
import { describe, expect, it } from 'vitest';
import { convertDocument, segmentWords } from './engine.ts';
import { renderDocx } from './docx-render.ts';
import { renderPdf } from './pdf-render.ts';

const REPORT = [
  '# Quarterly report',
  '',
  'Sales rose **12%** in Q3, see [the table](https://example.com/t).',
  '',
  '- EMEA',
  '- APAC',
  '',
  '```js',
  'const total = 1200;',
  '```',
  '',
  '| Region | Sales |',
  '| --- | ---: |',
  '| EMEA | 1200 |',
  '',
].join('\n');

/** The text of every page, read back with a PDF reader library. */
async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, isEvalSupported: false }).promise;
  const pages: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  }
  await doc.destroy();
  return pages.join('\n');
}

describe('doc-convert engine', () => {
  it('reads CommonMark with GFM tables into blocks: heading, paragraph with its link, list, code, table', () => {
    const { blocks, title, findings } = convertDocument({ text: REPORT, to: 'json' });
    expect(title).toBe('Quarterly report');
    expect(blocks.map((b) => b.type)).toEqual(['heading', 'paragraph', 'list', 'code', 'table']);
    expect(blocks[1]).toEqual({ type: 'paragraph', text: 'Sales rose 12% in Q3, see the table.', links: [{ text: 'the table', url: 'https://example.com/t' }] });
    expect(blocks[4]).toEqual({ type: 'table', align: [null, 'right'], header: ['Region', 'Sales'], rows: [['EMEA', '1200']] });
    expect(findings).toMatchObject({ outcome: 'CONVERTED', block_counts: { code: 1, heading: 1, list: 1, paragraph: 3, table: 1 } });
  });

  it('normalises Markdown and proves it by a round trip; normalising the result again changes nothing', () => {
    const first = convertDocument({ text: '* one\n* two\n\nSome *emphasis*   here\n', to: 'markdown' });
    expect(first.findings['round_trip']).toBe('IDENTICAL');
    const again = convertDocument({ text: first.text!, to: 'markdown' });
    expect(again.text).toBe(first.text);
  });

  it('reads plain text as paragraphs, escaping what would be markup in Markdown', () => {
    const { blocks, text } = convertDocument({ text: '# not a heading\n\nsecond *paragraph*', from: 'text', to: 'markdown' });
    expect(blocks.map((b) => b.type)).toEqual(['paragraph', 'paragraph']);
    expect(text).toContain('\\# not a heading');
  });

  it('segments words by Unicode rules, with counts and offsets in code points past an emoji', () => {
    const words = segmentWords('I 💚 naïve café, café!') as { word_count: number; frequencies: Array<{ word: string; count: number }>; words: Array<{ word: string; offset: number; length: number }> };
    expect(words.word_count).toBe(4);
    expect(words.frequencies[0]).toEqual({ word: 'café', count: 2 });
    expect(words.words[1]).toEqual({ word: 'naïve', offset: 4, length: 5 });
  });

  it('writes a PDF a reader library opens and finds the text in; the same input gives the same bytes', async () => {
    const { blocks, title } = convertDocument({ text: REPORT, to: 'pdf' });
    const [a, b] = [await renderPdf(blocks, title), await renderPdf(blocks, title)];
    expect(Buffer.compare(a, b)).toBe(0);
    expect(a.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(a);
    for (const expected of ['Quarterly report', 'Sales rose 12% in Q3', 'EMEA', 'APAC', 'Region', 'total']) expect(text).toContain(expected);
    expect(text.replace(/\s+/g, ' ')).toMatch(/const\s*total\s*=\s*1200;/);
  });

  it('writes a DOCX with fixed dates: the same input gives the same bytes, and the text is in the document part', async () => {
    const { blocks, title } = convertDocument({ text: REPORT, to: 'docx' });
    const [a, b] = [await renderDocx(blocks, title), await renderDocx(blocks, title)];
    expect(Buffer.compare(a, b)).toBe(0);
    const parts = unzipSync(a);
    expect(strFromU8(parts['word/document.xml']!)).toContain('Quarterly report');
    expect(strFromU8(parts['docProps/core.xml']!)).toContain('2000-01-01T00:00:00Z');
  });
});

describe('a PDF of a word longer than a line', () => {
  // PDFKit searched for each line's break by measuring ever shorter slices, keeping every width:
  // a 100,000-character word ran the process out of memory. Runs are now set 48 code points a line.
  it('is set in lines of 48 code points, at once, whatever the word\'s length', async () => {
    const { blocks, title } = convertDocument({ text: 'x'.repeat(99_000), from: 'text', to: 'pdf' });
    const pdf = await renderPdf(blocks, title);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(await renderPdf(blocks, title)).toEqual(pdf);
  }, 20_000);
});
