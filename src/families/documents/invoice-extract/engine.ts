import type { CommandResult } from '../../../kernel/operation.ts';
import { add, compare, DECIMAL_PATTERN, formatDecimal, multiply, parseDecimal, type Decimal } from '../../../kernel/exact-decimal.ts';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { utilityReceipt } from '../utility-receipt.ts';
import { LINE_TERMS, TERMS, type Extracted, type InvoiceLine } from './en16931.ts';
import { extractFromCii, extractFromUbl } from './structured-invoice.ts';
import { extractFromText } from './text-invoice.ts';

export const INVOICE_RULESET = { id: 'invoice-extract', version: '1', standard: 'EN 16931-1:2017 business terms' } as const;

export type InvoiceExtractInput = { text: string } | { ubl_xml: string } | { cii_xml: string };

const valueOf = (e: Extracted | undefined): Decimal | undefined => (e?.status === 'FOUND' && DECIMAL_PATTERN.test(e.value) ? parseDecimal(e.value) : undefined);

/** The arithmetic rules of EN 16931 that the extracted figures allow, checked exactly. */
function arithmetic(terms: Record<string, Extracted>, lines: InvoiceLine[]): JsonValue[] {
  const checks: JsonValue[] = [];
  const rule = (id: string, formula: string, left: Decimal | undefined, right: Decimal | undefined, needs: string[]) => {
    if (!left || !right) checks.push({ id, formula, status: 'NOT-PROVIDED', needs });
    else checks.push({ id, formula, status: compare(left, right) === 0 ? 'HOLDS' : 'FAILS', left: formatDecimal(left), right: formatDecimal(right) });
  };
  lines.forEach((line, i) => {
    const [q, p, a] = [line.quantity, line.unit_price, line.line_amount].map((v) => (v !== null && DECIMAL_PATTERN.test(v) ? parseDecimal(v) : undefined));
    rule(`line_${i}_amount`, 'quantity x unit price = line amount (BT-129 x BT-146 = BT-131)', q && p ? multiply(q, p) : undefined, a, ['BT-129', 'BT-146', 'BT-131']);
  });
  const amounts = lines.map((l) => (l.line_amount !== null && DECIMAL_PATTERN.test(l.line_amount) ? parseDecimal(l.line_amount) : undefined));
  const lineSum = lines.length > 0 && amounts.every((a) => a) ? amounts.reduce<Decimal>((s, a) => add(s, a!), { units: 0n, scale: 0 }) : undefined;
  rule('lines_sum_to_net', 'sum of line amounts = net total (sum of BT-131 = BT-106, and = BT-109 without allowances)', lineSum, valueOf(terms['line_net_total']) ?? valueOf(terms['net_total']), ['BG-25', 'BT-106 or BT-109']);
  const net = valueOf(terms['net_total']);
  const tax = valueOf(terms['tax_total']);
  rule('net_plus_tax_is_total', 'net total + tax total = grand total (BT-109 + BT-110 = BT-112)', net && tax ? add(net, tax) : undefined, valueOf(terms['grand_total']), ['BT-109', 'BT-110', 'BT-112']);
  return checks;
}

/** The text path alone, for callers that have text from elsewhere (OCR): pure, no receipt. */
export function extractInvoiceFromText(text: string): JsonObject {
  const { terms, lines } = extractFromText(text);
  return summarise('text', terms, lines);
}

function summarise(source: 'text' | 'ubl' | 'cii', terms: Record<string, Extracted>, lines: InvoiceLine[]): JsonObject {
  const checks = arithmetic(terms, lines);
  const found = Object.values(terms).filter((t) => t.status === 'FOUND').length;
  return {
    source_format: source,
    outcome: found === 0 ? 'INSUFFICIENT-DATA' : checks.some((c) => (c as { status: string }).status === 'FAILS') ? 'EXTRACTED-WITH-INCONSISTENCIES' : 'EXTRACTED',
    terms: terms as unknown as JsonValue,
    lines: lines.map((l) => ({ ...l, terms: LINE_TERMS })) as unknown as JsonValue,
    arithmetic: checks,
    not_provided: Object.entries(terms).filter(([, t]) => t.status === 'NOT-PROVIDED').map(([name]) => `${name} (${TERMS[name as keyof typeof TERMS]})`),
  };
}

export function extractInvoice(input: InvoiceExtractInput, now: number): CommandResult {
  const [format, content] = 'text' in input ? (['text', input.text] as const) : 'ubl_xml' in input ? (['ubl', input.ubl_xml] as const) : (['cii', input.cii_xml] as const);
  let findings: JsonObject;
  if (format === 'text') findings = extractInvoiceFromText(content);
  else {
    const parsed = format === 'ubl' ? extractFromUbl(content) : extractFromCii(content);
    findings = 'unusable' in parsed ? { source_format: format, outcome: 'INSUFFICIENT-DATA', reason: parsed.unusable } : summarise(format, parsed.terms, parsed.lines);
  }
  const output = `${JSON.stringify({ terms: findings['terms'] ?? {}, lines: findings['lines'] ?? [] })}\n`;
  return utilityReceipt({
    utility: 'utils.invoice-extract',
    now,
    input: content,
    output: { content: output, mediaType: 'application/json' },
    ruleset: { ...INVOICE_RULESET },
    findings: {
      ...findings,
      evidence_source: 'caller-supplied',
      limitations: format === 'text' ? ['free text is read by labelled patterns only: a value without a recognised label is NOT-PROVIDED, never inferred from position', 'ambiguous dates (03/04/2026) and amounts (1.234) are NOT-PROVIDED, never guessed'] : [],
    },
  });
}
