import { describe, expect, it } from 'vitest';
import { canonicalText, type JsonObject } from '../../../signing/rfc8785.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import { runSecExtract, type SecExtractInput } from './engine.ts';
import { parseIJson } from '../../../kernel/rfc7493.ts';

const extract = (input: SecExtractInput) => {
  const { record, beside } = runSecExtract(input, 1_767_225_600);
  const output = JSON.parse(beside!['output'] as string) as { text: string; facts: JsonObject[] };
  return { result: record['utility_result'] as JsonObject & { items: Array<Record<string, unknown>>; cover: Record<string, JsonObject> }, output, record };
};

const TOC = ['Item 1.', 'Business', '3', 'Item 1A.', 'Risk Factors', '9', 'Item 7.', 'Management’s Discussion', '30'].map((t) => `<tr><td>${t}</td></tr>`).join('');
const TEN_K = `<html><body><p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p><p>FORM 10-K</p><table>${TOC}</table>
<p><b>Item 1. Business</b></p><p>We make widgets 🙂 in Ohio.</p>
<p><b>Item 1A. Risk Factors</b></p><p>Widgets may break &amp; rust.</p>
<p><b>Item 7. Management’s Discussion</b></p><p>Net loss was <ix:nonFraction name="us-gaap:NetIncomeLoss" contextRef="FY25" unitRef="usd" decimals="-5" scale="6" sign="-" format="ixt:num-dot-decimal">12.3</ix:nonFraction> million;
shares <ix:nonFraction name="dei:EntityCommonStockSharesOutstanding" contextRef="I25" unitRef="shares" decimals="0" format="ixt:num-comma-decimal">1.234.567</ix:nonFraction>; impairment <ix:nonFraction name="us-gaap:Impairment" contextRef="FY25" unitRef="usd" format="ixt:fixed-zero">—</ix:nonFraction>; other <ix:nonFraction name="us-gaap:Other" contextRef="FY25" unitRef="usd" format="ixt-sec:numwordsen">five</ix:nonFraction>.</p>
<div style="display:none"><ix:header><ix:hidden><ix:nonNumeric name="dei:DocumentPeriodEndDate" contextRef="FY25" format="ixt:date-monthname-day-year-en">December 31, 2025</ix:nonNumeric><ix:nonNumeric name="dei:CurrentFiscalYearEndDate" contextRef="FY25">--12-31</ix:nonNumeric></ix:hidden>
<ix:resources><xbrli:context id="FY25"><xbrli:period><xbrli:startDate>2025-01-01</xbrli:startDate><xbrli:endDate>2025-12-31</xbrli:endDate></xbrli:period></xbrli:context><xbrli:context id="I25"><xbrli:period><xbrli:instant>2026-02-01</xbrli:instant></xbrli:period></xbrli:context>
<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit><xbrli:unit id="shares"><xbrli:measure>xbrli:shares</xbrli:measure></xbrli:unit></ix:resources></ix:header></div>
</body></html>`;

describe('10-K items', () => {
  it('skips the table of contents; each item has code-point offsets into output.text and the SHA-256 of that slice', () => {
    const { result, output } = extract({ document: TEN_K });
    expect(result).toMatchObject({ outcome: 'EXTRACTED', form_type: '10-K', form_type_source: 'cover-page heading', contents_entries_skipped: 3 });
    expect(result.items.map((i) => `${i['item']}:${i['title']}`)).toEqual(['1:Business', '1A:Risk Factors', '7:Management’s Discussion']);
    const points = [...output.text];
    for (const item of result.items) {
      const slice = points.slice(item['start'] as number, item['end'] as number).join('');
      expect(sha256Hex(slice)).toBe(item['sha256']);
    }
    const business = points.slice(result.items[0]!['start'] as number, result.items[0]!['end'] as number).join('');
    expect(business).toBe('Item 1. Business\n\nWe make widgets 🙂 in Ohio.');
    expect(output.text).toContain('Widgets may break & rust.');
  });

  it('resolves inline XBRL: scale, sign, comma decimals, fixed-zero, and an unsupported format NOT-RESOLVED', () => {
    const { output, result } = extract({ document: TEN_K });
    const byName = Object.fromEntries(output.facts.map((f) => [f['name'] as string, f]));
    expect(byName['us-gaap:NetIncomeLoss']).toMatchObject({ value: '-12300000', scale: '6', sign: '-', decimals: '-5', unit: 'iso4217:USD', period: { start: '2025-01-01', end: '2025-12-31' } });
    expect(byName['dei:EntityCommonStockSharesOutstanding']).toMatchObject({ value: '1234567', unit: 'xbrli:shares', period: { instant: '2026-02-01' } });
    expect(byName['us-gaap:Impairment']).toMatchObject({ value: '0' });
    expect(byName['us-gaap:Other']).toMatchObject({ value: null, status: 'NOT-RESOLVED' });
    expect(result['fact_counts']).toEqual({ nonFraction: 4, nonNumeric: 2, not_resolved: 1 });
    expect(result.cover['period_end']).toMatchObject({ status: 'PROVIDED', value: 'December 31, 2025' });
    expect(result.cover['fiscal_year_end']).toMatchObject({ value: '--12-31' });
    expect(result.cover['registrant']).toMatchObject({ status: 'NOT-PROVIDED' });
    // Hidden cover facts are not part of the visible text.
    expect(output.text).not.toContain('--12-31');
  });
});

describe('10-Q and 8-K', () => {
  it('10-Q items are keyed by part', () => {
    const text = 'FORM 10-Q\nPART I. FINANCIAL INFORMATION\nItem 1. Financial Statements\nTables.\nItem 2. MD&A\nDiscussion.\nPART II. OTHER INFORMATION\nItem 1. Legal Proceedings\nNone.\nItem 1A. Risk Factors\nNo changes.\nItem 6. Exhibits\nList.';
    const { result } = extract({ document: text });
    expect(result['input_format']).toBe('text');
    expect(result.items.map((i) => `${i['part']}-${i['item']}`)).toEqual(['I-1', 'I-2', 'II-1', 'II-1A', 'II-6']);
  });

  it('8-K item numbers; an unknown form is FORM-TYPE-UNKNOWN unless the caller names it', () => {
    const text = 'Item 2.02 Results of Operations and Financial Condition\nResults.\nItem 9.01 Financial Statements and Exhibits\nExhibit 99.1';
    expect(extract({ document: text }).result['outcome']).toBe('FORM-TYPE-UNKNOWN');
    expect(extract({ document: text, form_type: '8-K' }).result.items.map((i) => i['item'])).toEqual(['2.02', '9.01']);
  });

  it('a heading title longer than 200 characters is cut on a whole character: the record stays I-JSON, so its verify route takes it', () => {
    const text = `Item 2.02 ${'x'.repeat(199)}😀 more\nResults.\nItem 9.01 Financial Statements`;
    const { result, record } = extract({ document: text, form_type: '8-K' });
    expect(result.items[0]!['title']).toBe('x'.repeat(199));
    expect(parseIJson(canonicalText(record)).ok).toBe(true);
  });

  it('a scale beyond -30..30 is NOT-RESOLVED, not a thousand digits written out (ruleset 2)', () => {
    const html = '<html><body><p>FORM 10-K</p><ix:nonFraction name="us-gaap:A" contextRef="c" scale="999">1</ix:nonFraction><ix:nonFraction name="us-gaap:B" contextRef="c" scale="6">1.5</ix:nonFraction></body></html>';
    const facts = extract({ document: html }).output.facts;
    expect(facts.find((f) => f['name'] === 'us-gaap:A')).toMatchObject({ value: null, status: 'NOT-RESOLVED', reason: 'scale 999 is outside -30 to 30' });
    expect(facts.find((f) => f['name'] === 'us-gaap:B')).toMatchObject({ value: '1500000' });
  });

  it('the same filing twice gives the same bytes', () => {
    const a = runSecExtract({ document: TEN_K }, 1);
    const b = runSecExtract({ document: TEN_K }, 1);
    expect(canonicalText(a.record)).toBe(canonicalText(b.record));
    expect(a.beside).toEqual(b.beside);
  });
});
