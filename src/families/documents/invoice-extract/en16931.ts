import { Decimal } from 'decimal.js';
import type { JsonObject } from '../../../signing/rfc8785.ts';

/**
 * The EN 16931-1 semantic terms this extraction reports, with the numbers the standard gives
 * them, and its calculation rules (BR-CO-10, BR-CO-13, BR-CO-15) checked with exact decimal
 * arithmetic: a sum is never rounded through a binary float.
 */
export const HEADER_TERMS = {
  invoice_number: { term: 'BT-1', name: 'Invoice number' },
  issue_date: { term: 'BT-2', name: 'Invoice issue date' },
  currency: { term: 'BT-5', name: 'Invoice currency code' },
  due_date: { term: 'BT-9', name: 'Payment due date' },
  seller_name: { term: 'BT-27', name: 'Seller name' },
  seller_vat_id: { term: 'BT-31', name: 'Seller VAT identifier' },
  buyer_name: { term: 'BT-44', name: 'Buyer name' },
  net_total: { term: 'BT-109', name: 'Invoice total amount without VAT' },
  tax_total: { term: 'BT-110', name: 'Invoice total VAT amount' },
  grand_total: { term: 'BT-112', name: 'Invoice total amount with VAT' },
} as const;

export type HeaderTermKey = keyof typeof HEADER_TERMS;
export const HEADER_TERM_KEYS = Object.keys(HEADER_TERMS) as HeaderTermKey[];

export const LINE_TERMS = {
  line_id: { term: 'BT-126', name: 'Invoice line identifier' },
  item_name: { term: 'BT-153', name: 'Item name' },
  quantity: { term: 'BT-129', name: 'Invoiced quantity' },
  unit_price: { term: 'BT-146', name: 'Item net price' },
  line_amount: { term: 'BT-131', name: 'Invoice line net amount' },
} as const;

export type LineTermKey = keyof typeof LINE_TERMS;

/** Where a value was read: code-point offsets in text, or the element path in XML. */
export type SourceSpan = { start: number; end: number } | { path: string };

export type FoundValue = {
  value: string;
  source: SourceSpan;
};

/** A term found, or NOT-PROVIDED with the reason (absent, ambiguous, unreadable). */
export type TermResult = ({ status: 'PROVIDED' } & FoundValue) | { status: 'NOT-PROVIDED'; reason: string };

export const provided = (found: FoundValue): TermResult => ({ status: 'PROVIDED', ...found });
export const notProvided = (reason: string): TermResult => ({ status: 'NOT-PROVIDED', reason });

export interface ExtractedLine {
  fields: Partial<Record<LineTermKey, TermResult>>;
}

/** Document-level amounts only structured XML carries (BT-106, BT-107, BT-108). */
export interface StructuredTotals {
  sum_of_line_amounts?: TermResult;
  allowance_total?: TermResult;
  charge_total?: TermResult;
}

export interface InvoiceFields {
  header: Record<HeaderTermKey, TermResult>;
  lines: ExtractedLine[];
  structured?: StructuredTotals;
}

export const DECIMAL_PATTERN = /^-?\d{1,20}(\.\d{1,10})?$/;

const amountOf = (t: TermResult | undefined): Decimal | undefined => (t?.status === 'PROVIDED' && DECIMAL_PATTERN.test(t.value) ? new Decimal(t.value) : undefined);

export type CheckStatus = 'PASS' | 'FAIL' | 'NOT-CHECKED';

function ruleCheck(rule: string, description: string, computed: Decimal | undefined, stated: Decimal | undefined, missing: string[]): JsonObject {
  if (computed === undefined || stated === undefined) return { rule, description, status: 'NOT-CHECKED', reason: `not provided: ${missing.join(', ')}` };
  return { rule, description, status: computed.eq(stated) ? 'PASS' : 'FAIL', computed: computed.toFixed(), stated: stated.toFixed() };
}

function missingNames(entries: Array<[string, unknown]>): string[] {
  return entries.filter(([, v]) => v === undefined).map(([name]) => name);
}

/** The sum of the line net amounts, or undefined when a line lacks a readable amount (or none). */
function sumOfLines(lines: ExtractedLine[]): Decimal | undefined {
  if (lines.length === 0) return undefined;
  let sum = new Decimal(0);
  for (const line of lines) {
    const amount = amountOf(line.fields.line_amount);
    if (amount === undefined) return undefined;
    sum = sum.plus(amount);
  }
  return sum;
}

/** quantity x unit price = line amount, per line (the price base quantity BT-149 taken as 1). */
function lineChecks(lines: ExtractedLine[]): JsonObject[] {
  return lines.map((line, index) => {
    const quantity = amountOf(line.fields.quantity);
    const price = amountOf(line.fields.unit_price);
    const amount = amountOf(line.fields.line_amount);
    const missing = missingNames([['BT-129', quantity], ['BT-146', price], ['BT-131', amount]]);
    return { line: index + 1, ...ruleCheck('line-net-amount', 'BT-131 = BT-129 x BT-146 (no line allowances or charges, price base quantity 1)', quantity && price ? quantity.times(price) : undefined, amount, missing) };
  });
}

/**
 * The calculation rules of EN 16931 over the extracted amounts. From text, where document-level
 * allowances and charges (BT-107, BT-108) are not read, the lines are compared with BT-109
 * directly, which BR-CO-10 with BR-CO-13 gives when there are none; the check says so.
 */
export function arithmeticChecks(fields: InvoiceFields): { rules: JsonObject[]; lines: JsonObject[] } {
  const { header, lines, structured } = fields;
  const linesSum = sumOfLines(lines);
  const net = amountOf(header.net_total);
  const tax = amountOf(header.tax_total);
  const grand = amountOf(header.grand_total);
  const rules: JsonObject[] = [];
  if (structured) {
    const lineTotal = amountOf(structured.sum_of_line_amounts);
    rules.push(ruleCheck('BR-CO-10', 'BT-106 = sum of BT-131', linesSum, lineTotal, missingNames([['BT-131 on every line', linesSum], ['BT-106', lineTotal]])));
    const allowances = structured.allowance_total ? amountOf(structured.allowance_total) : new Decimal(0);
    const charges = structured.charge_total ? amountOf(structured.charge_total) : new Decimal(0);
    const computedNet = lineTotal && allowances && charges ? lineTotal.minus(allowances).plus(charges) : undefined;
    rules.push(ruleCheck('BR-CO-13', 'BT-109 = BT-106 - BT-107 + BT-108', computedNet, net, missingNames([['BT-106', lineTotal], ['BT-109', net]])));
  } else {
    rules.push(ruleCheck('BR-CO-10+BR-CO-13', 'BT-109 = sum of BT-131, assuming no document-level allowances or charges (BT-107, BT-108 are not read from text)', linesSum, net, missingNames([['BT-131 on every line', linesSum], ['BT-109', net]])));
  }
  rules.push(ruleCheck('BR-CO-15', 'BT-112 = BT-109 + BT-110', net && tax ? net.plus(tax) : undefined, grand, missingNames([['BT-109', net], ['BT-110', tax], ['BT-112', grand]])));
  return { rules, lines: lineChecks(lines) };
}
