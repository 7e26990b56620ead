import { z } from 'zod';
import { pricedOperation, type Command, type Route } from '../../../kernel/operation.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { utilityReceipt } from '../utility-receipt.ts';
import type { DocConvertInput, RenderedConversion } from './engine.ts';
import { runOnEngineThread } from '../../../kernel/engine-threads/pool.ts';
import { moduleBeside } from '../../../kernel/worker-script.ts';
import { utilityReceiptResponse } from '../utils-verify/receipt-schema.ts';
import { MAX_EMPHASIS_MARKS, MAX_MARKDOWN_NESTING, markdownShapeProblem } from './markdown-limits.ts';

export const DOC_CONVERT_ID = 'utils.doc-convert';
export const MAX_DOC_CONVERT_CHARACTERS = 100_000;

/** The libraries that write each output, by the exact version package.json pins (a test holds them equal). */
export const DOC_CONVERT_LIBRARIES = {
  parser: [
    { name: 'mdast-util-from-markdown', version: '2.1.0' },
    { name: 'micromark-extension-gfm-table', version: '2.1.2' },
  ],
  markdown: [{ name: 'mdast-util-to-markdown', version: '2.2.3' }],
  pdf: [{ name: 'pdfkit', version: '0.20.2' }],
  docx: [
    { name: 'docx', version: '9.6.0' },
    { name: 'fflate', version: '0.8.3' },
  ],
} as const;

const docConvertInput = z
  .object({
    text: z.string().max(MAX_DOC_CONVERT_CHARACTERS).describe(`The document, at most ${MAX_DOC_CONVERT_CHARACTERS} characters`),
    from: z.enum(['text', 'markdown']).optional().describe('How to read `text`: CommonMark with GFM tables (default), or plain text whose paragraphs are separated by blank lines'),
    to: z.enum(['json', 'markdown', 'words', 'pdf', 'docx']).describe('json: the blocks; markdown: normalised CommonMark checked by a round trip; words: Unicode word segmentation with counts; pdf and docx: byte-identical for the same input'),
  })
  .strict();

/** A library that did the work, by the exact version installed. */
const engineEntry = z.object({ name: z.string(), version: z.string() });

function enginesFor(conversion: Pick<RenderedConversion, 'from' | 'to'>, unicode: string): JsonObject[] {
  const parser = conversion.from === 'markdown' ? DOC_CONVERT_LIBRARIES.parser : [];
  const writer =
    conversion.to === 'markdown' ? DOC_CONVERT_LIBRARIES.markdown
      : conversion.to === 'pdf' ? DOC_CONVERT_LIBRARIES.pdf
        : conversion.to === 'docx' ? DOC_CONVERT_LIBRARIES.docx
          : conversion.to === 'words' ? [{ name: 'Intl.Segmenter (ICU)', version: unicode }]
            : [];
  return [...parser, ...writer].map((e) => ({ ...e }));
}

/** ICU and Unicode versions of this host: word boundaries depend on them, so the record names them. */
const HOST_UNICODE = `ICU ${process.versions.icu ?? 'unknown'}, Unicode ${process.versions.unicode ?? 'unknown'}`;

const convert: Command<DocConvertInput> = {
  async execute(input, ctx) {
    // On an engine thread: a conversion's worst inputs take seconds and hundreds of MB.
    const conversion = await runOnEngineThread<RenderedConversion>(ctx.settings, moduleBeside(import.meta.url, 'engine'), 'convertAndRender', [input]);
    const { fontRulesetData } = await import('./fonts.ts');
    const usesFonts = conversion.to === 'pdf' || conversion.to === 'docx';
    return utilityReceipt({
      utility: DOC_CONVERT_ID,
      now: ctx.now,
      input: input.text,
      output: { content: conversion.content, mediaType: conversion.mediaType },
      ruleset: { id: 'doc-convert', version: conversion.version, ...(usesFonts ? { data: fontRulesetData() } : {}) },
      findings: { ...conversion.findings, engines: enginesFor(conversion, HOST_UNICODE) },
    });
  },
  runsOnEngineThread: true,
};

const docConvertFindings = {
  outcome: z.literal('CONVERTED'),
  from: z.enum(['text', 'markdown']),
  to: z.enum(['json', 'markdown', 'words', 'pdf', 'docx']),
  title: z.string().describe('The first heading, or NOT-PROVIDED'),
  block_counts: z.record(z.string(), z.number().int()),
  round_trip: z.enum(['IDENTICAL', 'DIFFERS']).optional().describe('markdown only: the normal form parsed again gives the same tree'),
  word_count: z.number().int().optional(),
  unique_word_count: z.number().int().optional(),
  limitations: z.array(z.string()),
  engines: z.array(engineEntry),
};

const docConvert = pricedOperation({
  id: DOC_CONVERT_ID,
  method: 'POST',
  path: '/v1/utils/doc-convert',
  family: 'documents',
  priceUsd: '0.10',
  summary: 'Converts text to JSON, Markdown or words, or to PDF or DOCX (byte-identical for the same input).',
  description:
    'Reads `text` as CommonMark (with GFM tables) or as plain text and writes it as JSON blocks (headings, paragraphs, lists, code, tables, quotes), normalised Markdown checked by a round trip, Unicode word segmentation (Intl.Segmenter) with counts and code-point offsets, a PDF (PDFKit, DejaVu fonts) or a DOCX. PDF and DOCX carry fixed dates and ids, so the same input gives byte-identical output. The output travels beside the signed utility receipt (`output`, base64 for PDF and DOCX), bound by output_sha256. Markdown that nests block quotes or list items more than ' + MAX_MARKDOWN_NESTING + ' deep or holds more than ' + MAX_EMPHASIS_MARKS + ' emphasis marks is 422 before the quote (its parser would take minutes).',
  inputFrom: 'json',
  input: docConvertInput,
  example: { text: '# Quarterly report\n\nSales rose **12%** in Q3.\n\n| Region | Sales |\n| --- | ---: |\n| EMEA | 1200 |\n', from: 'markdown', to: 'pdf' },
  output: utilityReceiptResponse(DOC_CONVERT_ID, docConvertFindings),
  keyFamily: 'utils',
  signedMember: null,
  verifyPath: '/v1/utils/verify',
  outputBeside: true,
  // Decided by the input alone, before the quote: shapes the Markdown parser takes minutes over.
  precheck(input) {
    const problem = (input.from ?? 'markdown') === 'markdown' ? markdownShapeProblem(input.text) : undefined;
    return problem ? { status: 422, error: 'markdown_too_complex', message: problem, outcome: 'INVALID-INPUT', issues: [{ path: 'text', message: problem }] } : undefined;
  },
  command: convert,
});

export const docConvertRoutes: Route[] = [docConvert];
