import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { translateDocument } from './engine.ts';
import { translateDocOperation } from './operation.ts';

const run = (input: Parameters<typeof translateDocument>[0]) => {
  const { record, beside } = translateDocument(input, 1_767_225_600);
  return { result: record['utility_result'] as JsonObject, output: beside!['output'] as string, record };
};

describe('translation by memory and glossary only', () => {
  it('translates the exact memory match, substitutes glossary terms elsewhere, marks the rest NOT-TRANSLATED', () => {
    const { result, output } = run(translateDocOperation.example as never);
    expect(output).toBe('The Rechnung is due in 30 days. Late payment incurs interest. Vielen Dank für Ihre Bestellung.');
    expect(result['segments']).toEqual([
      { index: 0, start: 0, length: 30, status: 'GLOSSARY-TERMS-ONLY', glossary_terms: ['invoice'] },
      { index: 1, start: 31, length: 29, status: 'NOT-TRANSLATED' },
      { index: 2, start: 61, length: 25, status: 'TM-EXACT' },
    ]);
    expect(result).toMatchObject({ outcome: 'PARTIAL', share_translated: 0.2976, segment_counts: { tm_exact: 1, glossary_terms_only: 1, not_translated: 1 } });
  });

  it('nothing to match: every segment untranslated and said so; the same input gives the same bytes', () => {
    const input = { text: 'Guten Tag. Wie geht es?', source_lang: 'de', target_lang: 'en' };
    const { result, output } = run(input);
    expect(output).toBe(input.text);
    expect(result).toMatchObject({ outcome: 'NOT-TRANSLATED', share_translated: 0 });
    expect(JSON.stringify(run(input).record)).toBe(JSON.stringify(run(input).record));
  });
});
