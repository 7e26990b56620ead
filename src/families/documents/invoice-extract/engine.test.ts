import { readFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it, vi } from 'vitest';
import { canonicalText, type JsonObject } from '../../../signing/rfc8785.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import { extractInvoiceFromText, runInvoiceExtract } from './engine.ts';
import { parseWellFormed, xmlProblem, type ParsedXml } from './xml-invoice.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const NOW = 1_767_225_600;

const TEXT = [
  'Seller: ACME Supplies Ltd 🚀',
  'VAT No: GB123456789',
  'Invoice No: INV-2026-0042',
  'Invoice date: 2026-03-04',
  'Due date: 18 March 2026',
  'Bill to:',
  'Globex Corporation',
  'Widget A            2      10.00       20.00',
  'Consulting hours    3      60.00      180.00',
  'Subtotal: 200.00',
  'VAT 20%: 40.00',
  'Total due: EUR 240.00',
].join('\n');

type Term = { field: string; status: string; value?: string; reason?: string; source?: { start: number; end: number } };
const terms = (extraction: JsonObject) => Object.fromEntries((extraction['terms'] as unknown as Term[]).map((t) => [t.field, t]));
const checks = (extraction: JsonObject) => Object.fromEntries((extraction['checks'] as Array<{ rule: string; status: string }>).map((c) => [c.rule, c.status]));

describe('invoice terms from plain text', () => {
  it('reads every term of a clearly labelled invoice, with code-point spans that point at the value (emoji before it)', () => {
    const extraction = extractInvoiceFromText(TEXT);
    expect(extraction['outcome']).toBe('EXTRACTED');
    const t = terms(extraction);
    expect(Object.fromEntries(Object.entries(t).map(([k, v]) => [k, v.value]))).toEqual({
      invoice_number: 'INV-2026-0042', issue_date: '2026-03-04', currency: 'EUR', due_date: '2026-03-18', seller_name: 'ACME Supplies Ltd 🚀',
      seller_vat_id: 'GB123456789', buyer_name: 'Globex Corporation', net_total: '200.00', tax_total: '40.00', grand_total: '240.00',
    });
    const codePoints = [...TEXT];
    // The emoji is one code point: spans after it are still exact in code points.
    for (const field of ['invoice_number', 'seller_vat_id', 'grand_total']) expect(codePoints.slice(t[field]!.source!.start, t[field]!.source!.end).join('')).toBe(t[field]!.value);
    expect(checks(extraction)).toEqual({ 'BR-CO-10+BR-CO-13': 'PASS', 'BR-CO-15': 'PASS' });
    expect(extraction['lines']).toHaveLength(2);
  });

  it('an ambiguous date, a "$" and an amount such as 1,234 are NOT-PROVIDED with the reason, never guessed', () => {
    const extraction = extractInvoiceFromText('Invoice #A-7\nDate: 03/04/2026\nDue date: 13/04/2026\nTotal: $1,234\n');
    const t = terms(extraction);
    expect(t['issue_date']).toMatchObject({ status: 'NOT-PROVIDED', reason: expect.stringContaining('ambiguous') });
    expect(t['due_date']).toMatchObject({ status: 'PROVIDED', value: '2026-04-13' });
    expect(t['currency']).toMatchObject({ status: 'NOT-PROVIDED', reason: expect.stringContaining('several currencies') });
    expect(t['grand_total']).toMatchObject({ status: 'NOT-PROVIDED', reason: expect.stringContaining('ambiguous') });
    expect(extraction['outcome']).toBe('INCOMPLETE');
    expect(extraction['not_provided']).toContain('issue_date');
  });

  it('a total that is not net plus tax is INCONSISTENT (BR-CO-15), with exact decimals', () => {
    const extraction = extractInvoiceFromText(TEXT.replace('Total due: EUR 240.00', 'Total due: EUR 240.01'));
    expect(extraction['outcome']).toBe('INCONSISTENT');
    expect(extraction['checks']).toContainEqual(expect.objectContaining({ rule: 'BR-CO-15', status: 'FAIL', computed: '240', stated: '240.01' }));
  });

  it('reads European amounts (1.234,50) and says nothing it cannot read', () => {
    const extraction = extractInvoiceFromText('Invoice no: R-1\nNet total: 1.000,00 EUR\nVAT: 190,00 EUR\nGrand total: 1.190,00 EUR');
    expect(checks(extraction)['BR-CO-15']).toBe('PASS');
    expect(terms(extraction)['grand_total']!.value).toBe('1190.00');
  });
});

describe('invoice terms from UBL and CII', () => {
  it('UBL: exact values by path, and 0.10 + 0.20 = 0.30 exactly (BR-CO-10)', () => {
    const { record } = runInvoiceExtract({ ubl_xml: fixture('invoice.ubl.xml') }, NOW);
    const result = record['utility_result'] as JsonObject;
    expect(result['outcome']).toBe('EXTRACTED');
    const t = terms(result);
    expect(t['seller_name']).toMatchObject({ value: 'Muster & Co GmbH', source: { path: 'Invoice/AccountingSupplierParty/Party/PartyLegalEntity/RegistrationName' } });
    expect(t['due_date']!.value).toBe('2026-04-03');
    expect(checks(result)).toEqual({ 'BR-CO-10': 'PASS', 'BR-CO-13': 'PASS', 'BR-CO-15': 'PASS' });
  });

  it('CII: the VA registration is the VAT id (not FC), dates from format 102', () => {
    const { record } = runInvoiceExtract({ cii_xml: fixture('invoice.cii.xml') }, NOW);
    const result = record['utility_result'] as JsonObject;
    const t = terms(result);
    expect(t['seller_vat_id']!.value).toBe('DE123456789');
    expect(t['issue_date']!.value).toBe('2026-03-04');
    expect(t['grand_total']!.value).toBe('235.62');
    expect(result['outcome']).toBe('EXTRACTED');
  });

  it('XML of another root is NOT-AN-INVOICE; malformed XML and a DOCTYPE are found before any work', () => {
    const { record } = runInvoiceExtract({ ubl_xml: '<Order><ID>1</ID></Order>' }, NOW);
    expect(record['utility_result']).toMatchObject({ outcome: 'NOT-AN-INVOICE' });
    expect(xmlProblem('<Invoice><ID>1</Invoice>')).toBeDefined();
    expect(xmlProblem('<!DOCTYPE x [<!ENTITY a "b">]><Invoice/>')).toContain('document type');
    // Well formed, but deeper than the parser reads: refused before the quote, not a 500 after it.
    expect(xmlProblem(`<Invoice>${'<a>'.repeat(101)}${'</a>'.repeat(101)}</Invoice>`)).toContain('cannot be read');
    expect(xmlProblem(`<Invoice>${'<a>'.repeat(90)}${'</a>'.repeat(90)}</Invoice>`)).toBeUndefined();
  });
});

describe('the XML parsed before the quote', () => {
  const checked = (xml: string): ParsedXml => {
    const read = parseWellFormed(xml);
    if (!('parsed' in read)) throw new Error(read.problem);
    return read.parsed;
  };

  it('is the document the paid call reads when the precheck hands it over: one parse, and the record a call parsing alone signs', () => {
    const xml = fixture('invoice.ubl.xml');
    const parse = vi.spyOn(XMLParser.prototype, 'parse');
    try {
      const paid = runInvoiceExtract({ ubl_xml: xml }, NOW, checked(xml));
      expect(parse).toHaveBeenCalledTimes(1);
      // Without the precheck's document (a command called alone) it parses for itself and signs the same bytes.
      const alone = runInvoiceExtract({ ubl_xml: xml }, NOW);
      expect(parse).toHaveBeenCalledTimes(2);
      expect(canonicalText(alone.record)).toBe(canonicalText(paid.record));
      expect(alone.beside).toEqual(paid.beside);
    } finally {
      parse.mockRestore();
    }
  });

  it('is never read for other XML: a document handed with another source is ignored and the source parsed', () => {
    const other = runInvoiceExtract({ ubl_xml: '<Order><ID>1</ID></Order>' }, NOW, checked(fixture('invoice.ubl.xml')));
    expect(other.record['utility_result']).toMatchObject({ outcome: 'NOT-AN-INVOICE' });
  });
});

describe('the receipt', () => {
  it('binds the plain invoice JSON by digest, and the same input twice gives the same bytes', () => {
    const first = runInvoiceExtract({ text: TEXT }, NOW);
    const second = runInvoiceExtract({ text: TEXT }, NOW);
    expect(canonicalText(first.record)).toBe(canonicalText(second.record));
    expect(first.beside).toEqual(second.beside);
    const output = first.beside!['output'] as string;
    expect(JSON.parse(output)).toMatchObject({ invoice_number: 'INV-2026-0042', grand_total: '240.00' });
    expect(first.record['utility_result']).toMatchObject({ output_sha256: sha256Hex(output), input_sha256: sha256Hex(TEXT), output_media_type: 'application/json', evidence_source: 'caller-supplied' });
  });
});

describe('amounts in a text invoice', () => {
  it('are never read out of a run of digits and letters (1e400 read 400): the term is NOT-PROVIDED', async () => {
    const { runInvoiceExtract } = await import('./engine.ts');
    for (const written of ['1e400', '0x400', '-5-400', '12a34']) {
      const { beside } = runInvoiceExtract({ text: `Invoice no. INV-1\nSubtotal: ${written}\n` }, 1_767_225_600);
      expect(JSON.parse(beside!['output'] as string)['net_total'], written).toBeNull();
    }
    const { beside } = runInvoiceExtract({ text: 'Invoice no. INV-1\nSubtotal: EUR12.00\n' }, 1_767_225_600);
    expect(JSON.parse(beside!['output'] as string)['net_total']).toBe('12.00');
  });
});
