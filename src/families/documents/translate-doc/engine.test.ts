import { describe, expect, it } from 'vitest';
import { canonicalText, type JsonObject } from '../../../signing/rfc8785.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import { runTranslateDoc, type TranslateDocInput } from './engine.ts';

const translate = (input: TranslateDocInput) => {
  const { record, beside } = runTranslateDoc(input, 1_767_225_600);
  return { result: record['utility_result'] as JsonObject & { segments: Array<Record<string, unknown>> }, output: beside!['output'] as string, record };
};

const text = 'Thank you for your order. The invoice is attached.\nPayment is due within 30 days. 🙂 Bye.';
const memory = [{ source: 'Thank you for your order.', target: 'Vielen Dank für Ihre Bestellung.' }];
const glossary = [{ source: 'invoice', target: 'Rechnung' }, { source: 'credit note', target: 'Gutschrift' }];

describe('translation by memory and glossary only', () => {
  it('exact memory matches are translated, glossary terms substituted, everything else NOT-TRANSLATED; whitespace kept', () => {
    const { result, output } = translate({ text, source_lang: 'en', target_lang: 'de', memory, glossary });
    expect(output).toBe('Vielen Dank für Ihre Bestellung. The Rechnung is attached.\nPayment is due within 30 days. 🙂 Bye.');
    expect(result.segments.map((s) => s['status'])).toEqual(['TM-EXACT', 'GLOSSARY-SUBSTITUTED', 'NOT-TRANSLATED', 'NOT-TRANSLATED']);
    expect(result['outcome']).toBe('PARTIAL');
    // 25 of 25 + 24 + 30 + 6 code points of segment text, rounded down.
    expect(result['share_translated']).toBe('0.2941');
    expect(result['share_translated_segments']).toBe('0.2500');
  });

  it('segment offsets are code points (emoji counted once)', () => {
    const { result } = translate({ text, source_lang: 'en', target_lang: 'de' });
    const last = result.segments[result.segments.length - 1]!;
    expect([...text].slice(last['start'] as number, last['end'] as number).join('')).toBe('🙂 Bye.');
  });

  it('a memory match is exact: another case or wording is not a match', () => {
    expect(translate({ text: 'thank you for your order.', source_lang: 'en', target_lang: 'de', memory }).result['outcome']).toBe('NOT-TRANSLATED');
    expect(translate({ text: 'Thank you for your order.', source_lang: 'en', target_lang: 'de', memory }).result).toMatchObject({ outcome: 'TRANSLATED', share_translated: '1.0000' });
  });

  it('glossary terms are whole words, longest first', () => {
    const { output } = translate({ text: 'A credit note is not an invoices list.', source_lang: 'en', target_lang: 'de', glossary: [...glossary, { source: 'credit', target: 'Kredit' }] });
    expect(output).toBe('A Gutschrift is not an invoices list.');
  });

  it('binds input and output by SHA-256; the same input twice gives the same bytes', () => {
    const a = translate({ text, source_lang: 'en', target_lang: 'de', memory });
    const b = translate({ text, source_lang: 'en', target_lang: 'de', memory });
    expect(canonicalText(a.record)).toBe(canonicalText(b.record));
    expect(a.result).toMatchObject({ input_sha256: sha256Hex(text), output_sha256: sha256Hex(a.output) });
    expect(a.result['not_performed']).toEqual([expect.objectContaining({ check: 'machine translation' })]);
  });
});
