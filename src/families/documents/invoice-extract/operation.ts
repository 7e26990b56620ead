import { z } from 'zod';
import { pricedOperation, type PrecheckAnswer, type Refusal, type Route } from '../../../kernel/operation.ts';
import { codePointSpan, fromLazyUtilityEngine, utilityReceiptResponse } from '../utils-verify/receipt-schema.ts';
import { INVOICE_EXTRACT_OUTCOMES, INVOICE_EXTRACT_RULESET } from './vocabulary.ts';
import type { ParsedXml } from './xml-invoice.ts';

const MAX_SOURCE_CHARS = 500_000;

const invoiceExtractInput = z
  .object({
    text: z.string().min(1).max(MAX_SOURCE_CHARS).optional().describe('The plain text of an invoice (as printed, or OCR output)'),
    ubl_xml: z.string().min(1).max(MAX_SOURCE_CHARS).optional().describe('A UBL 2.1 Invoice or CreditNote (EN 16931 syntax binding CEN/TS 16931-3-2)'),
    cii_xml: z.string().min(1).max(MAX_SOURCE_CHARS).optional().describe('A UN/CEFACT Cross Industry Invoice (CEN/TS 16931-3-3)'),
  })
  .strict()
  .describe('Exactly one of text, ubl_xml, cii_xml');

const termSchema = z.object({
  field: z.string(),
  term: z.string().describe('EN 16931 business term, e.g. BT-1'),
  name: z.string(),
  status: z.enum(['PROVIDED', 'NOT-PROVIDED']),
  value: z.string().optional().describe('As written in XML; from text, dates as ISO 8601 and amounts as plain decimals'),
  source: z.union([codePointSpan, z.object({ path: z.string() })]).optional(),
  reason: z.string().optional().describe('Why the term is NOT-PROVIDED: absent, ambiguous (e.g. 03/04/2026), unreadable'),
});
const checkSchema = z.object({
  rule: z.string(),
  description: z.string(),
  status: z.enum(['PASS', 'FAIL', 'NOT-CHECKED']),
  computed: z.string().optional(),
  stated: z.string().optional(),
  reason: z.string().optional(),
  line: z.number().int().optional(),
});

const findings = {
  outcome: z.enum(INVOICE_EXTRACT_OUTCOMES),
  source_format: z.enum(['text', 'ubl', 'cii']),
  span_unit: z.enum(['unicode-code-point', 'xml-element-path']).optional(),
  reason: z.string().optional(),
  terms: z.array(termSchema),
  lines: z.array(z.object({ line: z.number().int(), terms: z.array(termSchema) })),
  checks: z.array(checkSchema),
  line_checks: z.array(checkSchema),
  not_provided: z.array(z.string()),
  evidence_source: z.literal('caller-supplied'),
  not_performed: z.array(z.object({ check: z.string(), reason: z.string() })),
  limitations: z.array(z.string()),
};

function sourceRefusal(input: z.infer<typeof invoiceExtractInput>): Refusal | undefined {
  const given = (['text', 'ubl_xml', 'cii_xml'] as const).filter((k) => input[k] !== undefined);
  if (given.length !== 1) {
    const message = given.length === 0 ? 'give one of text, ubl_xml, cii_xml' : `give only one of text, ubl_xml, cii_xml (got ${given.join(', ')})`;
    return { status: 422, error: 'one_source_required', message, outcome: 'INVALID-INPUT', issues: [{ path: given[1] ?? 'text', message }] };
  }
  return undefined;
}

/**
 * Free and before any quote like sourceRefusal; asynchronous only because the XML parser loads on
 * first use. The document it parsed to check the XML is handed to the paid call of the request.
 */
async function xmlRefusal(input: z.infer<typeof invoiceExtractInput>): Promise<PrecheckAnswer<ParsedXml>> {
  const field = input.ubl_xml !== undefined ? 'ubl_xml' : input.cii_xml !== undefined ? 'cii_xml' : undefined;
  if (field === undefined) return undefined;
  const { parseWellFormed } = await import('./xml-invoice.ts');
  const checked = parseWellFormed(input[field]!);
  if ('parsed' in checked) return { handoff: checked.parsed };
  const { problem } = checked;
  return { status: 422, error: 'xml_not_well_formed', message: `${field} is not well-formed XML: ${problem}`, outcome: 'INVALID-INPUT', issues: [{ path: field, message: problem }] };
}

const invoiceExtract = pricedOperation({
  id: 'utils.invoice-extract',
  method: 'POST',
  path: '/v1/utils/invoice-extract',
  family: 'documents',
  priceUsd: '0.10',
  summary: 'Extracts vendor, amount, date, line items.',
  description: `Extracts the EN 16931 terms of an invoice (rule ${INVOICE_EXTRACT_RULESET.id}/${INVOICE_EXTRACT_RULESET.version}): invoice number BT-1, issue date BT-2, currency BT-5, due date BT-9, seller name BT-27 and VAT identifier BT-31, buyer name BT-44, the lines (BG-25: BT-129 quantity, BT-146 net price, BT-131 line net amount) and the totals BT-109, BT-110, BT-112, each with its source (code-point span in text, element path in XML). UBL and CII are read exactly; plain text by label. The calculation rules BR-CO-10, BR-CO-13, BR-CO-15 are checked with exact decimals. A missing, ambiguous (03/04/2026, "1,234", "$") or unreadable term is NOT-PROVIDED with the reason, never guessed. Outcome: EXTRACTED, INCOMPLETE (a term NOT-PROVIDED), INCONSISTENT (a rule fails), NOT-AN-INVOICE (XML of another root). The output beside the receipt is the plain invoice as RFC 8785 JSON.`,
  inputFrom: 'json',
  input: invoiceExtractInput,
  example: {
    text: 'ACME Supplies Ltd\nSeller: ACME Supplies Ltd\nVAT No: GB123456789\nInvoice No: INV-2026-0042\nInvoice date: 2026-03-04\nDue date: 18 March 2026\n\nBill to:\nGlobex Corporation\n\nDescription        Qty   Unit price   Amount\nWidget A            2      10.00       20.00\nConsulting hours    3      60.00      180.00\n\nSubtotal: 200.00\nVAT 20%: 40.00\nTotal due: EUR 240.00\n',
  },
  output: utilityReceiptResponse('utils.invoice-extract', findings),
  keyFamily: 'utils',
  signedMember: null,
  verifyPath: '/v1/utils/verify',
  precheck: (input) => sourceRefusal(input),
  precheckState: (input) => xmlRefusal(input),
  command: fromLazyUtilityEngine(async () => (await import('./engine.ts')).runInvoiceExtract),
  outputBeside: true,
});

export const invoiceExtractRoutes: Route[] = [invoiceExtract];
