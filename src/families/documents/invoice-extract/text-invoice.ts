import { DECIMAL_PATTERN } from '../../../kernel/exact-decimal.ts';
import { isCalendarDate } from '../../../kernel/calendar.ts';
import { TERMS, type Extracted, type InvoiceLine, type Term } from './en16931.ts';

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const iso = (y: number, m: number, d: number) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
const validDate = isCalendarDate;

/** A date written in text, as ISO 8601, or why it cannot be read without guessing. */
export function readDate(text: string): { value: string } | { reason: string } {
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text)) && validDate(+m[1]!, +m[2]!, +m[3]!)) return { value: text };
  if ((m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(text)) && validDate(+m[3]!, +m[2]!, +m[1]!)) return { value: iso(+m[3]!, +m[2]!, +m[1]!) };
  if ((m = /^(\d{1,2}) ([A-Za-z]+),? (\d{4})$/.exec(text)) && MONTHS.indexOf(m[2]!.toLowerCase()) >= 0) return { value: iso(+m[3]!, MONTHS.indexOf(m[2]!.toLowerCase()) + 1, +m[1]!) };
  if ((m = /^([A-Za-z]+) (\d{1,2}),? (\d{4})$/.exec(text)) && MONTHS.indexOf(m[1]!.toLowerCase()) >= 0) return { value: iso(+m[3]!, MONTHS.indexOf(m[1]!.toLowerCase()) + 1, +m[2]!) };
  if ((m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text))) {
    const [a, b, y] = [+m[1]!, +m[2]!, +m[3]!];
    if (a > 12 && validDate(y, b, a)) return { value: iso(y, b, a) };
    if (b > 12 && validDate(y, a, b)) return { value: iso(y, a, b) };
    return { reason: `${text} is ambiguous: day/month or month/day; not guessed` };
  }
  return { reason: `${text} is not a date form this extraction reads` };
}

/**
 * An amount written in text as a decimal string. "1,234.56" and "1.234,56" read as written; a
 * lone "." followed by exactly three digits ("1.234") is ambiguous and not guessed.
 */
export function readAmount(text: string): { value: string } | { reason: string } {
  const t = text.replace(/[\s\u00a0']/g, '').replace(/^\+/, '');
  const negative = t.startsWith('-');
  const body = negative ? t.slice(1) : t;
  const lastDot = body.lastIndexOf('.');
  const lastComma = body.lastIndexOf(',');
  let normal: string;
  if (lastDot >= 0 && lastComma >= 0) normal = lastComma > lastDot ? body.replaceAll('.', '').replace(',', '.') : body.replaceAll(',', '');
  else if (/^\d{1,3}(,\d{3})+$/.test(body)) normal = body.replaceAll(',', '');
  else if (/^\d+,\d{1,2}$/.test(body)) normal = body.replace(',', '.');
  else if (/^\d{1,3}(\.\d{3}){2,}$/.test(body)) normal = body.replaceAll('.', '');
  else if (/^\d{1,3}\.\d{3}$/.test(body)) return { reason: `${text} is ambiguous: 1.234 may be a thousand or one; not guessed` };
  else normal = body;
  normal = `${negative ? '-' : ''}${normal.replace(/^0+(\d)/, '$1')}`;
  return DECIMAL_PATTERN.test(normal) ? { value: normal } : { reason: `${text} is not an amount` };
}

const AMOUNT = String.raw`-?[\d][\d.,'\u00a0 ]*\d|\d`;
const DATE = String.raw`\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{4}|\d{1,2} [A-Za-z]+,? \d{4}|[A-Za-z]+ \d{1,2},? \d{4}`;

interface Label {
  term: Term;
  pattern: RegExp;
  read: (raw: string) => { value: string } | { reason: string };
}

const asText = (raw: string) => ({ value: raw.trim() });
const LABELS: Label[] = [
  { term: 'invoice_number', pattern: /\b(?:invoice\s*(?:no\.?|number|#)|rechnungs?(?:nummer|-?nr\.?)|facture\s*n[°o]\.?)\s*[:#]?\s*([A-Z0-9][A-Z0-9\-/.]{1,34})/i, read: asText },
  { term: 'issue_date', pattern: new RegExp(String.raw`\b(?:invoice date|date of issue|issue date|rechnungsdatum|date)\s*:?\s*(${DATE})`, 'i'), read: readDate },
  { term: 'due_date', pattern: new RegExp(String.raw`\b(?:due date|payment due|due by|due|fällig(?:keit)?(?: am)?)\s*:?\s*(${DATE})`, 'i'), read: readDate },
  { term: 'seller_name', pattern: /^\s*(?:seller|supplier|from|vendor)\s*:\s*(.+)$/im, read: asText },
  { term: 'seller_vat_id', pattern: /\b(?:vat\s*(?:id|no\.?|number|reg(?:istration)?\.?\s*no\.?)?|ust-?id(?:nr)?\.?)\s*[:#]?\s*([A-Z]{2}[A-Z0-9]{8,12})\b/i, read: asText },
  { term: 'buyer_name', pattern: /^\s*(?:bill to|buyer|customer|sold to)\s*:\s*(.+)$/im, read: asText },
  { term: 'net_total', pattern: new RegExp(String.raw`\b(?:subtotal|net total|total net|total excl\.? (?:vat|tax)|nettobetrag)\s*:?\s*(?:[A-Z]{3}|[€£$])?\s*(${AMOUNT})`, 'i'), read: readAmount },
  { term: 'tax_total', pattern: new RegExp(String.raw`^\s*(?:vat|tax|sales tax|mwst\.?|ust\.?)(?:\s*\(?\d{1,2}(?:[.,]\d+)?\s*%\)?)?\s*:?\s*(?:[A-Z]{3}|[€£$])?\s*(${AMOUNT})\s*$`, 'im'), read: readAmount },
  { term: 'grand_total', pattern: new RegExp(String.raw`^\s*(?:grand total|total due|amount due|total|gesamtbetrag)\s*:?\s*(?:[A-Z]{3}|[€£$])?\s*(${AMOUNT})\s*$`, 'im'), read: readAmount },
];

const CURRENCY_SYMBOLS: Record<string, string> = { '€': 'EUR', '£': 'GBP' };

function currencyOf(text: string): Extracted {
  const code = /\b(EUR|USD|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK|PLN|CZK)\b/.exec(text);
  if (code) return { bt: TERMS.currency, status: 'FOUND', value: code[1]!, source: `text offset ${code.index}` };
  const symbol = /[€£]/.exec(text);
  if (symbol) return { bt: TERMS.currency, status: 'FOUND', value: CURRENCY_SYMBOLS[symbol[0]]!, source: `text offset ${symbol.index} (symbol ${symbol[0]})` };
  if (text.includes('$')) return { bt: TERMS.currency, status: 'NOT-PROVIDED', reason: '$ alone names several currencies (USD, CAD, AUD, ...); not guessed' };
  return { bt: TERMS.currency, status: 'NOT-PROVIDED', reason: 'no currency code or unambiguous symbol in the text' };
}

/** "Widget A   2 x 10.00   20.00", "Widget A 2 @ 10.00 20.00": description, quantity, unit price, amount. */
function linesOf(text: string): InvoiceLine[] {
  const lines: InvoiceLine[] = [];
  const pattern = new RegExp(String.raw`^\s*(.+?)\s{2,}(\d+(?:[.,]\d+)?)\s*(?:x|@|×)?\s+(${AMOUNT})\s+(${AMOUNT})\s*$`, 'gim');
  for (const m of text.matchAll(pattern)) {
    if (/\b(total|subtotal|vat|tax)\b/i.test(m[1]!)) continue;
    const [q, p, a] = [readAmount(m[2]!), readAmount(m[3]!), readAmount(m[4]!)];
    lines.push({ name: m[1]!.trim(), quantity: 'value' in q ? q.value : null, unit_price: 'value' in p ? p.value : null, line_amount: 'value' in a ? a.value : null, source: `text offset ${m.index}` });
  }
  return lines;
}

export function extractFromText(text: string): { terms: Record<string, Extracted>; lines: InvoiceLine[] } {
  const terms: Record<string, Extracted> = {};
  for (const label of LABELS) {
    const m = label.pattern.exec(text);
    if (!m) {
      terms[label.term] = { bt: TERMS[label.term], status: 'NOT-PROVIDED', reason: 'no labelled value in the text' };
      continue;
    }
    const read = label.read(m[1]!);
    terms[label.term] = 'value' in read ? { bt: TERMS[label.term], status: 'FOUND', value: read.value, source: `text offset ${m.index + m[0].indexOf(m[1]!)}` } : { bt: TERMS[label.term], status: 'NOT-PROVIDED', reason: read.reason };
  }
  terms['currency'] = currencyOf(text);
  return { terms, lines: linesOf(text) };
}
