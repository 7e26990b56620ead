import { z } from 'zod';
import { pricedOperation, type Refusal, type Route } from '../../../kernel/operation.ts';
import { invalidInputRefusal } from '../../../kernel/refusal.ts';
import { codePointSpan, utilityReceiptResponse } from '../utils-verify/receipt-schema.ts';
import { fromThreadedEngine } from '../../../kernel/engine-threads/threaded-command.ts';
import { moduleBeside } from '../../../kernel/worker-script.ts';
import { SEGMENT_STATUSES, TRANSLATE_DOC_RULESET, type TermPair } from './engine.ts';

const languageTag = z.string().regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,3}$/, 'must be a BCP 47 language tag such as en, de-CH, pt-BR');
const termPair = z.object({ source: z.string().min(1).max(2_000), target: z.string().max(2_000) }).strict();

const translateDocInput = z
  .object({
    text: z.string().min(1).max(200_000),
    source_lang: languageTag,
    target_lang: languageTag,
    glossary: z.array(termPair).max(2_000).optional().describe('Terms substituted as whole words within segments, longest first'),
    memory: z.array(termPair).max(5_000).optional().describe('Translation memory: a segment whose exact text (NFC, trimmed) is a source gets its target'),
  })
  .strict();

const findings = {
  outcome: z.enum(['TRANSLATED', 'PARTIAL', 'NOT-TRANSLATED']),
  source_lang: z.string(),
  target_lang: z.string(),
  engines: z.array(z.string()),
  segmentation: z.string(),
  offset_unit: z.literal('unicode-code-point'),
  segment_count: z.number().int(),
  segment_counts: z.record(z.string(), z.number().int()),
  share_translated: z.string().describe('Share of segment characters translated by exact memory match, 4 decimals, rounded down'),
  share_translated_segments: z.string(),
  share_glossary_substituted: z.string(),
  segments: z.array(z.object({ index: z.number().int(), ...codePointSpan.shape, status: z.enum(SEGMENT_STATUSES), memory_index: z.number().int().optional(), glossary_indexes: z.array(z.number().int()).optional() })),
  memory_entries: z.number().int(),
  glossary_entries: z.number().int(),
  evidence_source: z.literal('caller-supplied'),
  not_performed: z.array(z.object({ check: z.string(), reason: z.string() })),
  limitations: z.array(z.string()),
};

/** Two targets for one source would make the result depend on list order: refused, free. */
function conflict(field: 'glossary' | 'memory', pairs: TermPair[] | undefined, normalise: (s: string) => string): Refusal | undefined {
  const seen = new Map<string, { target: string; index: number }>();
  for (const [index, pair] of (pairs ?? []).entries()) {
    const key = normalise(pair.source);
    const first = seen.get(key);
    if (first && first.target !== pair.target) {
      return invalidInputRefusal(`${field}_conflict`, `${field}.${index}.target`, `entries ${first.index} and ${index} give different targets for the same source`, field);
    }
    if (!first) seen.set(key, { target: pair.target, index });
  }
  return undefined;
}

const translateDoc = pricedOperation({
  id: 'utils.translate-doc',
  method: 'POST',
  path: '/v1/utils/translate-doc',
  family: 'documents',
  priceUsd: '0.10',
  summary: 'Translated output with a SHA-256 receipt.',
  description: `Translates only what can be translated honestly without a model (rule ${TRANSLATE_DOC_RULESET.id}/${TRANSLATE_DOC_RULESET.version}): the text is split into sentences (Unicode rules for source_lang) and lines; a segment whose exact text is in the caller's translation memory gets its target (TM-EXACT); otherwise the caller's glossary terms are substituted as whole words (GLOSSARY-SUBSTITUTED, still the source language); every other segment is returned as written and marked NOT-TRANSLATED. The receipt gives each segment's status and code-point offsets, share_translated (memory-matched characters), and the SHA-256 of input and output. No machine translation engine runs here. Outcome: TRANSLATED, PARTIAL, NOT-TRANSLATED.`,
  inputFrom: 'json',
  input: translateDocInput,
  example: {
    text: 'Thank you for your order. The invoice is attached.\nPayment is due within 30 days.',
    source_lang: 'en',
    target_lang: 'de',
    memory: [{ source: 'Thank you for your order.', target: 'Vielen Dank für Ihre Bestellung.' }],
    glossary: [{ source: 'invoice', target: 'Rechnung' }],
  },
  output: utilityReceiptResponse('utils.translate-doc', findings),
  keyFamily: 'utils',
  signedMember: null,
  verifyPath: '/v1/utils/verify',
  precheck: (input) => conflict('memory', input.memory, (s) => s.normalize('NFC').trim()) ?? conflict('glossary', input.glossary, (s) => s.normalize('NFC')),
  // On an engine thread: 200,000 characters of short lines take it seconds.
  command: fromThreadedEngine(moduleBeside(import.meta.url, 'engine'), 'runTranslateDoc'),
  outputBeside: true,
});

export const translateDocRoutes: Route[] = [translateDoc];
