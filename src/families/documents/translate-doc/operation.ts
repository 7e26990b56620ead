import { z } from 'zod';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { utilityResponse } from '../utility-receipt.ts';
import { translateDocument } from './engine.ts';

// BCP 47 language, optional script and region: every tag of this form is well formed.
const lang = z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|\d{3}))?$/, 'must be a BCP 47 language tag such as en, de-CH or zh-Hant-TW');
const pair = z.object({ source: z.string().min(1).max(5_000), target: z.string().max(5_000) }).strict();

const input = z
  .object({
    text: z.string().min(1).max(200_000),
    source_lang: lang,
    target_lang: lang,
    glossary: z.array(pair).max(5_000).optional().describe('Terms substituted as whole words inside segments the memory does not translate'),
    memory: z.array(pair).max(20_000).optional().describe('Translation memory: a segment equal to a source (whitespace-normalised) becomes its target'),
  })
  .strict();

export const translateDocOperation = pricedOperation({
  id: 'utils.translate-doc',
  method: 'POST',
  path: '/v1/utils/translate-doc',
  family: 'documents',
  priceUsd: '0.10',
  summary: 'Translated output with a SHA-256 receipt.',
  description:
    'No model inference exists here, so translation is what can be done honestly: sentences (Unicode segmentation) translated by exact translation-memory match, glossary terms substituted inside the others, and every other segment returned untranslated and marked NOT-TRANSLATED, with the share translated. The receipt binds input and output by SHA-256.',
  inputFrom: 'json',
  input,
  example: {
    text: 'The invoice is due in 30 days. Late payment incurs interest. Thank you for your order.',
    source_lang: 'en',
    target_lang: 'de',
    memory: [{ source: 'Thank you for your order.', target: 'Vielen Dank für Ihre Bestellung.' }],
    glossary: [{ source: 'invoice', target: 'Rechnung' }],
  },
  output: utilityResponse('utils.translate-doc', { outcome: z.enum(['TRANSLATED', 'PARTIAL', 'NOT-TRANSLATED']), segments: z.array(z.looseObject({})), share_translated: z.number() }),
  keyFamily: 'utils',
  signedMember: null,
  verifyPath: '/v1/utils/verify',
  outputBeside: true,
  command: { execute: async (i, ctx) => translateDocument(i, ctx.now) },
});

export const translateDocRoutes: Route[] = [translateDocOperation];
