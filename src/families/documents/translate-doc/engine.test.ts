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

describe('segment offsets in code points', () => {
  it('count a character outside the BMP once, in every segment after it', () => {
    const text = 'Hi 😀.\nThank you 😀😀.\nBye.';
    const segments = translate({ text, source_lang: 'en', target_lang: 'de' }).result.segments as Array<{ start: number; end: number }>;
    const points = [...text];
    expect(segments.map((s) => points.slice(s.start, s.end).join(''))).toEqual(['Hi 😀.', 'Thank you 😀😀.', 'Bye.']);
  });

  // Each segment's offsets were counted from the start of the text, and V8's sentence segmenter
  // takes time in the square of the segments of one call: minutes of event loop for 200,000
  // characters of short lines. Offsets are counted on from the last, and lines segmented apart.
  it('are counted in one pass over 200,000 characters of short lines', () => {
    const text = 'a\n=\n\n'.repeat(40_000);
    const segments = translate({ text, source_lang: 'en', target_lang: 'de' }).result.segments as Array<{ start: number; end: number }>;
    expect(segments).toHaveLength(80_000);
    expect(segments.at(-1)).toMatchObject({ start: text.length - 3, end: text.length - 2 });
    // One line of 28,000 sentences: segmented a window at a time, every sentence found as it is.
    const line = 'Ab cd. '.repeat(28_000);
    const sentences = translate({ text: line, source_lang: 'en', target_lang: 'de' }).result.segments as Array<{ start: number; end: number }>;
    expect(sentences).toHaveLength(28_000);
    expect(sentences.every((s, i) => s.start === 7 * i && s.end === 7 * i + 6)).toBe(true);
  }, 20_000);
});
