import { codePointOffsets, uax29Segments } from '../../../kernel/uax29-segments.ts';
import { canonicalText } from '../../../signing/rfc8785.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { blockCounts, blocksOf, documentTree, parseMarkdownTree, titleOf, withoutPositions, writeMarkdown, type Block, type SourceFormat } from './document-model.ts';

export const DOC_CONVERT_VERSION = '1';

export type TargetFormat = 'json' | 'markdown' | 'words' | 'pdf' | 'docx';

export interface DocConvertInput {
  text: string;
  from?: SourceFormat;
  to: TargetFormat;
}

/** What the engine decides; the PDF and DOCX bytes are written from `blocks` by the renderers. */
export interface Conversion {
  from: SourceFormat;
  to: TargetFormat;
  blocks: Block[];
  title: string | null;
  /** The output for the text targets (json, markdown, words); null for pdf and docx. */
  text: string | null;
  mediaType: string;
  findings: JsonObject;
}

export const MEDIA_TYPES: Record<TargetFormat, string> = {
  json: 'application/json',
  markdown: 'text/markdown; charset=utf-8',
  words: 'application/json',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

const LIMITATIONS: Record<TargetFormat, string[]> = {
  json: ['Inline formatting (emphasis, strong, inline code) is flattened to its text; links are listed beside their paragraph.'],
  markdown: ['The output is CommonMark with GFM tables, re-written in one normal form: the source spelling of markup (e.g. * or - bullets) is not kept.'],
  words: ['The supplied text is segmented as written: in Markdown, the words of link destinations and code count too; offsets are in code points of the supplied text.', 'Word boundaries follow Unicode Standard Annex #29 as the host ICU implements it (Intl.Segmenter); languages written without spaces are split by ICU dictionaries, not by meaning.'],
  pdf: ['Inline formatting is flattened to its text; images and raw HTML are not rendered (HTML is shown as text).', 'Glyphs missing from DejaVu Sans are drawn as the font\'s missing-glyph box.'],
  docx: ['Inline formatting is flattened to its text; images and raw HTML are not rendered (HTML is shown as text).'],
};

/** Word segmentation by Unicode rules: every word-like segment with its offset in code points. */
export function segmentWords(text: string): JsonObject {
  const segmenter = new Intl.Segmenter('und', { granularity: 'word' });
  const words: JsonObject[] = [];
  const counts = new Map<string, number>();
  const codePoints = codePointOffsets(text);
  for (const segment of uax29Segments(segmenter, text)) {
    if (!segment.isWordLike) continue;
    words.push({ word: segment.segment, offset: codePoints(segment.index), length: countCodePoints(segment.segment) });
    counts.set(segment.segment, (counts.get(segment.segment) ?? 0) + 1);
  }
  const frequencies = [...counts.entries()]
    .sort(([a, na], [b, nb]) => nb - na || (a < b ? -1 : a > b ? 1 : 0))
    .map(([word, count]) => ({ word, count }));
  return { word_count: words.length, unique_word_count: counts.size, frequencies, words, offsets_in: 'code-points' };
}

function countCodePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Markdown checked by a round trip: the normal form is parsed again and must give the same tree
 * (positions aside) as the source. A difference is reported, never hidden.
 */
function normaliseMarkdown(text: string, from: SourceFormat): { markdown: string; roundTrip: 'IDENTICAL' | 'DIFFERS' } {
  const tree = documentTree(text, from);
  const markdown = writeMarkdown(tree);
  const same = canonicalText(withoutPositions(parseMarkdownTree(markdown))) === canonicalText(withoutPositions(tree));
  return { markdown, roundTrip: same ? 'IDENTICAL' : 'DIFFERS' };
}

export function convertDocument(input: DocConvertInput): Conversion {
  const from = input.from ?? 'markdown';
  const blocks = blocksOf(documentTree(input.text, from));
  const base = { from, to: input.to, blocks, title: titleOf(blocks), mediaType: MEDIA_TYPES[input.to] };
  const findings: JsonObject = {
    outcome: 'CONVERTED',
    from,
    to: input.to,
    title: base.title ?? 'NOT-PROVIDED',
    block_counts: blockCounts(blocks),
    limitations: LIMITATIONS[input.to],
  };
  switch (input.to) {
    case 'json':
      return { ...base, text: canonicalText({ blocks }), findings };
    case 'markdown': {
      const { markdown, roundTrip } = normaliseMarkdown(input.text, from);
      return { ...base, text: markdown, findings: { ...findings, round_trip: roundTrip } };
    }
    case 'words': {
      const words = segmentWords(input.text);
      return { ...base, text: canonicalText(words), findings: { ...findings, word_count: words['word_count']!, unique_word_count: words['unique_word_count']! } };
    }
    case 'pdf':
    case 'docx':
      return { ...base, text: null, findings };
  }
}

/** A conversion with its output written: what the engine thread answers (no blocks: the output carries them). */
export interface RenderedConversion extends Omit<Conversion, 'blocks' | 'title' | 'text'> {
  content: string | Uint8Array;
  /** DOC_CONVERT_VERSION of the engine that ran. */
  version: string;
}

/**
 * The whole engine, as an engine thread runs it (src/kernel/engine-threads): parse, convert and
 * write the PDF or DOCX. Its worst inputs within the limits take seconds and hundreds of MB.
 */
export async function convertAndRender(input: DocConvertInput): Promise<RenderedConversion> {
  const { blocks, title, text, ...conversion } = convertDocument(input);
  if (text !== null) return { ...conversion, content: text, version: DOC_CONVERT_VERSION };
  const content = conversion.to === 'pdf' ? await (await import('./pdf-render.ts')).renderPdf(blocks, title) : await (await import('./docx-render.ts')).renderDocx(blocks, title);
  return { ...conversion, content, version: DOC_CONVERT_VERSION };
}
