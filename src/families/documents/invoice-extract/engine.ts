import type { CommandResult } from '../../../kernel/operation.ts';
import { canonicalText, type JsonObject, type JsonValue } from '../../../signing/rfc8785.ts';
import { utilityReceipt } from '../utility-receipt.ts';
import { arithmeticChecks, HEADER_TERM_KEYS, HEADER_TERMS, LINE_TERMS, type InvoiceFields, type LineTermKey, type TermResult } from './en16931.ts';
import { readTextInvoice } from './text-invoice.ts';
import { readXmlInvoice, type ParsedXml } from './xml-invoice.ts';
import { INVOICE_EXTRACT_RULESET, type InvoiceExtractOutcome } from './vocabulary.ts';

/** Exactly one of the three sources; the operation refuses zero or several before the quote. */
export interface InvoiceExtractInput {
  text?: string | undefined;
  ubl_xml?: string | undefined;
  cii_xml?: string | undefined;
}

const termJson = (key: string, meta: { term: string; name: string }, result: TermResult): JsonObject => ({ field: key, term: meta.term, name: meta.name, ...result });

function fieldsJson(fields: InvoiceFields): { terms: JsonObject[]; lines: JsonObject[] } {
  const terms = HEADER_TERM_KEYS.map((key) => termJson(key, HEADER_TERMS[key], fields.header[key]));
  const lines = fields.lines.map((line, index) => ({
    line: index + 1,
    terms: (Object.keys(LINE_TERMS) as LineTermKey[]).flatMap((key) => (line.fields[key] ? [termJson(key, LINE_TERMS[key], line.fields[key])] : [])),
  }));
  return { terms, lines };
}

const valueOf = (t: TermResult | undefined): JsonValue => (t?.status === 'PROVIDED' ? t.value : null);

/** The plain values, for a program that wants only the invoice: the output of the utility. */
function plainInvoice(fields: InvoiceFields): JsonObject {
  const header = Object.fromEntries(HEADER_TERM_KEYS.map((k) => [k, valueOf(fields.header[k])]));
  const lines = fields.lines.map((line) => Object.fromEntries((Object.keys(LINE_TERMS) as LineTermKey[]).filter((k) => line.fields[k]).map((k) => [k, valueOf(line.fields[k])])));
  return { ...header, lines };
}

/**
 * The extraction of a plain-text invoice (OCR output included): the EN 16931 terms with their
 * code-point spans or the reason each is NOT-PROVIDED, the line items, and the calculation rules
 * checked with exact decimals. Pure; the invoice OCR reuses it on the text it reads.
 */
export function extractInvoiceFromText(text: string): JsonObject {
  return extractionJson('text', readTextInvoice(text));
}

function extractionJson(sourceFormat: 'text' | 'ubl' | 'cii', fields: InvoiceFields): JsonObject {
  const { terms, lines } = fieldsJson(fields);
  const checks = arithmeticChecks(fields);
  const notProvided = terms.filter((t) => t['status'] === 'NOT-PROVIDED').map((t) => t['field'] as string);
  const failed = [...checks.rules, ...checks.lines].some((c) => c['status'] === 'FAIL');
  const outcome: InvoiceExtractOutcome = failed ? 'INCONSISTENT' : notProvided.length > 0 ? 'INCOMPLETE' : 'EXTRACTED';
  return {
    outcome,
    source_format: sourceFormat,
    span_unit: sourceFormat === 'text' ? 'unicode-code-point' : 'xml-element-path',
    terms,
    lines,
    checks: checks.rules,
    line_checks: checks.lines,
    not_provided: notProvided,
    invoice: plainInvoice(fields),
  };
}

function wrongRoot(sourceFormat: 'ubl' | 'cii', rootName: string): JsonObject {
  const expected = sourceFormat === 'ubl' ? 'Invoice or CreditNote (UBL 2.1)' : 'CrossIndustryInvoice (UN/CEFACT CII)';
  return { outcome: 'NOT-AN-INVOICE', source_format: sourceFormat, reason: `the root element is ${rootName}, not ${expected}`, terms: [], lines: [], checks: [], line_checks: [], not_provided: [...HEADER_TERM_KEYS], invoice: {} };
}

const LIMITATIONS_TEXT = [
  'From plain text, terms are read by their labels and layout; a term whose label or layout the rules do not recognise is NOT-PROVIDED, not guessed.',
  'Document-level allowances and charges (BT-107, BT-108) are not read from text.',
];
const LIMITATIONS_XML = ['Only the listed terms are extracted; the full EN 16931 business rules (Schematron) are not run.'];

/**
 * The priced utility: one receipt binding the plain invoice JSON by digest. `checkedXml`: the XML
 * source as the operation's precheck parsed it in this request; without it the XML is parsed here.
 */
export function runInvoiceExtract(input: InvoiceExtractInput, now: number, checkedXml?: ParsedXml): CommandResult {
  const [sourceFormat, source] = input.ubl_xml !== undefined ? (['ubl', input.ubl_xml] as const) : input.cii_xml !== undefined ? (['cii', input.cii_xml] as const) : (['text', input.text ?? ''] as const);
  let extraction: JsonObject;
  if (sourceFormat === 'text') extraction = extractInvoiceFromText(source);
  else {
    const read = readXmlInvoice(source, sourceFormat, checkedXml);
    extraction = 'wrong_root' in read ? wrongRoot(sourceFormat, read.wrong_root) : extractionJson(sourceFormat, read);
  }
  const { invoice, ...findings } = extraction;
  return utilityReceipt({
    utility: 'utils.invoice-extract',
    now,
    input: source,
    output: { content: canonicalText(invoice), mediaType: 'application/json' },
    ruleset: { ...INVOICE_EXTRACT_RULESET },
    findings: {
      ...findings,
      evidence_source: 'caller-supplied',
      not_performed: [{ check: 'EN 16931 Schematron validation', reason: 'only the listed terms and the calculation rules BR-CO-10, BR-CO-13 and BR-CO-15 are checked' }],
      limitations: sourceFormat === 'text' ? LIMITATIONS_TEXT : LIMITATIONS_XML,
    },
  });
}
