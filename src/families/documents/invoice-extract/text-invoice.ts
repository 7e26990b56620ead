import { HEADER_TERM_KEYS, notProvided, provided, type ExtractedLine, type HeaderTermKey, type InvoiceFields, type SourceSpan, type TermResult } from './en16931.ts';
import { codePointOffsets } from '../../../kernel/uax29-segments.ts';

/**
 * Reads EN 16931 terms from the plain text of an invoice by their labels ("Invoice no.",
 * "Due date", "Bill to", "Total"). A value is reported only when the text states it
 * unambiguously: a date such as 03/04/2026, an amount such as 1,234, a "$" without a currency
 * code, or two different totals under the same label are NOT-PROVIDED with the reason.
 * Source spans are code-point offsets [start, end) into the text.
 */

interface TextLine {
  text: string;
  /** UTF-16 index of the line's first character in the whole text. */
  at: number;
}

/** Converts UTF-16 indices to code-point offsets, for spans a caller in any language can apply. */
class CodePoints {
  /** Counted on from the last offset asked: spans come in text order, a few back within a line. */
  private readonly offset: (utf16: number) => number;
  constructor(text: string) {
    this.offset = codePointOffsets(text);
  }
  span(start: number, end: number): SourceSpan {
    return { start: this.offset(start), end: this.offset(end) };
  }
}

function splitLines(text: string): TextLine[] {
  const lines: TextLine[] = [];
  let at = 0;
  for (const piece of text.split(/(\r\n|\n|\r)/)) {
    if (piece === '\r\n' || piece === '\n' || piece === '\r') {
      at += piece.length;
      continue;
    }
    lines.push({ text: piece, at });
    at += piece.length;
  }
  return lines;
}

// ---- dates -------------------------------------------------------------------------------

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (y: number, m: number) => [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
const pad2 = (n: number) => String(n).padStart(2, '0');

type CalendarDay = { iso: string } | { reason: string };

function calendarDay(y: number, m: number, d: number, written: string): CalendarDay {
  if (m < 1 || m > 12 || d < 1 || d > daysIn(y, m)) return { reason: `"${written}" is not a calendar day` };
  return { iso: `${y}-${pad2(m)}-${pad2(d)}` };
}

const ISO_DAY = /\b(\d{4})-(\d{2})-(\d{2})\b/;
const NUMERIC_DAY = /\b(\d{1,2})([./-])(\d{1,2})\2(\d{4})\b/;
const DAY_MONTH_YEAR = /\b(\d{1,2})(?:st|nd|rd|th)?\.?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})\b/;
const MONTH_DAY_YEAR = /\b([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b/;

const monthNumber = (name: string): number | undefined => {
  const index = MONTHS.indexOf(name.slice(0, 3).toLowerCase());
  return index === -1 ? undefined : index + 1;
};

/** The first date written in `text`, with its UTF-16 range; an ambiguous one carries a reason. */
export function readDay(text: string): { day: CalendarDay; index: number; length: number } | undefined {
  const iso = ISO_DAY.exec(text);
  if (iso) return { day: calendarDay(Number(iso[1]), Number(iso[2]), Number(iso[3]), iso[0]), index: iso.index, length: iso[0].length };
  const named = DAY_MONTH_YEAR.exec(text);
  if (named && monthNumber(named[2]!)) return { day: calendarDay(Number(named[3]), monthNumber(named[2]!)!, Number(named[1]), named[0]), index: named.index, length: named[0].length };
  const american = MONTH_DAY_YEAR.exec(text);
  if (american && monthNumber(american[1]!)) return { day: calendarDay(Number(american[3]), monthNumber(american[1]!)!, Number(american[2]), american[0]), index: american.index, length: american[0].length };
  const numeric = NUMERIC_DAY.exec(text);
  if (!numeric) return undefined;
  const [written, first, , second, year] = numeric;
  const a = Number(first);
  const b = Number(second);
  const y = Number(year);
  const where = { index: numeric.index, length: written.length };
  // Day-first and month-first conventions both exist: only a reading that leaves no choice is taken.
  if (a > 12 && b <= 12) return { day: calendarDay(y, b, a, written), ...where };
  if (b > 12 && a <= 12) return { day: calendarDay(y, a, b, written), ...where };
  if (a === b) return { day: calendarDay(y, a, a, written), ...where };
  if (a > 12 && b > 12) return { day: { reason: `"${written}" is not a calendar day` }, ...where };
  return { day: { reason: `"${written}" is ambiguous: day ${a} of month ${b} or day ${b} of month ${a}; not guessed` }, ...where };
}

// ---- amounts -----------------------------------------------------------------------------

// Not part of a longer run of digits and letters: 1e400, 0x400, 12a34 and 5-400 hold no amount
// (a currency code written against the number, EUR12.00 or 12.00EUR, still does).
const AMOUNT_TOKEN = /(?<![\p{N}.,])(?<!\p{N}[\p{L}_-])-?\d+(?:[.,]\d+)*(?![\p{N}%])(?![\p{L}_-]\p{N})/gu;

type ReadAmount = { value: string } | { reason: string };

/** "1,234.50" -> "1234.50"; "1.234,50" -> "1234.50"; "1,234" is ambiguous and not read. */
export function readAmount(token: string): ReadAmount {
  const negative = token.startsWith('-');
  const body = negative ? token.slice(1) : token;
  const separators = [...body.matchAll(/[.,]/g)].map((m) => ({ char: m[0], index: m.index }));
  const sign = negative ? '-' : '';
  if (separators.length === 0) return { value: sign + body };
  const last = separators[separators.length - 1]!;
  const after = body.length - last.index - 1;
  const kinds = new Set(separators.map((s) => s.char));
  const groupsOfThree = (text: string, sep: string) => text.split(sep).slice(1).every((g) => g.length === 3);
  if (kinds.size === 2) {
    const head = body.slice(0, last.index);
    const group = separators[0]!.char;
    if (head.includes(last.char) || !groupsOfThree(head, group)) return { reason: `"${token}" mixes separators inconsistently` };
    return { value: `${sign}${head.split(group).join('')}.${body.slice(last.index + 1)}` };
  }
  if (separators.length === 1 && after !== 3) return { value: `${sign}${body.slice(0, last.index)}.${body.slice(last.index + 1)}` };
  if (separators.length === 1) return { reason: `"${token}" is ambiguous: a thousands separator or a decimal mark; not guessed` };
  if (groupsOfThree(body, last.char)) return { value: sign + body.split(last.char).join('') };
  return { reason: `"${token}" is not a readable amount` };
}

function amountsIn(text: string): Array<{ read: ReadAmount; index: number; length: number }> {
  return [...text.matchAll(AMOUNT_TOKEN)].map((m) => ({ read: readAmount(m[0]), index: m.index, length: m[0].length }));
}

// ---- currency ----------------------------------------------------------------------------

/** ISO 4217 alphabetic codes of the currencies invoices are commonly issued in. */
const ISO_4217 = new Set(
  'AED ARS AUD BGN BRL CAD CHF CLP CNY COP CZK DKK EGP EUR GBP HKD HUF IDR ILS INR ISK JPY KES KRW MAD MXN MYR NGN NOK NZD PEN PHP PKR PLN QAR RON RSD RUB SAR SEK SGD THB TRY TWD UAH USD VND ZAR'.split(' '),
);
const CURRENCY_CODE = /\b([A-Z]{3})\b/g;
const UNAMBIGUOUS_SYMBOLS: Record<string, string> = { '€': 'EUR', '£': 'GBP', '₹': 'INR', '₩': 'KRW', '₺': 'TRY', '₴': 'UAH', '₪': 'ILS' };

// ---- labels ------------------------------------------------------------------------------

const INVOICE_NUMBER = /\b(?:invoice|inv\.?)\s*(?:no\.?|number|num\.?|#|id)?\s*[:#]?\s*(?=[A-Za-z0-9/_.-]*\d)([A-Za-z0-9][A-Za-z0-9/_.-]{0,63})/i;
const DUE_LABEL = /\b(?:due\s+date|payment\s+due|due\s+(?:by|on)|pay\s+by)\b/i;
const ISSUE_LABEL = /\b(?:invoice\s+date|date\s+of\s+issue|issue\s+date|issued(?:\s+on)?|date)\b/i;
const SELLER_LABEL = /^\s*(?:seller|supplier|vendor|from|sold\s+by|issued\s+by)\s*:\s*(.*)$/i;
const BUYER_LABEL = /^\s*(?:buyer|customer|bill(?:ed)?\s+to|invoice\s+to|sold\s+to|to)\s*:\s*(.*)$/i;
const VAT_ID = /\b(?:VAT|TVA|USt|IVA|BTW|MwSt|GST)\b[\s.-]*(?:ID|Id|No\.?|Nr\.?|number|Reg(?:istration)?\.?(?:\s*No\.?)?|IdNr\.?)?\s*[:#]?\s*([A-Z]{2}[\s]?[0-9A-Z]{2,13})\b/;
const NET_LABEL = /\b(?:sub\s*-?\s*total|net\s+(?:total|amount)|total\s+net|total\s+(?:excl\.?|excluding|before|without)|amount\s+excl)/i;
const TAX_LABEL = /\b(?:vat|tax|sales\s+tax|gst|hst|mwst|ust|tva|iva)\b/i;
const GRAND_LABEL = /\b(?:grand\s+total|total\s+(?:due|payable|amount|incl)|amount\s+(?:due|payable)|balance\s+due|total)\b/i;
const LINE_ITEM = /^\s*(?<name>[^\d\s].*?)\s+(?<qty>\d+(?:[.,]\d+)?)\s*(?:x|×|@|pcs|units?|hrs?|h)?\s+[€$£]?\s?(?<price>-?\d[\d.,]*)\s+[€$£]?\s?(?<amount>-?\d[\d.,]*)\s*(?:[A-Z]{3})?\s*$/;

interface Labelled {
  line: TextLine;
  index: number;
}

function firstValueAfter(lines: TextLine[], label: RegExp, skip?: RegExp): Labelled | undefined {
  for (const line of lines) {
    if (skip?.test(line.text)) continue;
    const m = label.exec(line.text);
    if (m) return { line, index: m.index + m[0].length };
  }
  return undefined;
}

class TextReader {
  readonly lines: TextLine[];
  private readonly cp: CodePoints;
  constructor(readonly text: string) {
    this.lines = splitLines(text);
    this.cp = new CodePoints(text);
  }

  found(value: string, start: number, end: number): TermResult {
    return provided({ value, source: this.cp.span(start, end) });
  }

  invoiceNumber(): TermResult {
    for (const line of this.lines) {
      const m = INVOICE_NUMBER.exec(line.text);
      if (!m || /^(date|total|to)$/i.test(m[1]!)) continue;
      const start = line.at + m.index + m[0].length - m[1]!.length;
      return this.found(m[1]!, start, start + m[1]!.length);
    }
    return notProvided('no labelled invoice number (e.g. "Invoice no.")');
  }

  day(label: RegExp, what: string, skip?: RegExp): TermResult {
    const labelled = firstValueAfter(this.lines, label, skip);
    if (!labelled) return notProvided(`no labelled ${what}`);
    const rest = labelled.line.text.slice(labelled.index);
    const read = readDay(rest);
    if (!read) return notProvided(`the ${what} label is followed by no readable date`);
    if ('reason' in read.day) return notProvided(read.day.reason);
    const start = labelled.line.at + labelled.index + read.index;
    return this.found(read.day.iso, start, start + read.length);
  }

  currency(): TermResult {
    const codes = new Map<string, number>();
    for (const m of this.text.matchAll(CURRENCY_CODE)) if (ISO_4217.has(m[1]!) && !codes.has(m[1]!)) codes.set(m[1]!, m.index);
    if (codes.size === 1) {
      const [code, at] = [...codes][0]!;
      return this.found(code, at, at + 3);
    }
    if (codes.size > 1) return notProvided(`several currency codes appear (${[...codes.keys()].join(', ')})`);
    const symbols = new Map<string, number>();
    for (const [i, ch] of [...this.text].entries()) if (UNAMBIGUOUS_SYMBOLS[ch] !== undefined && !symbols.has(ch)) symbols.set(ch, i);
    if (symbols.size === 1) {
      const [symbol] = [...symbols][0]!;
      const at = this.text.indexOf(symbol);
      return this.found(UNAMBIGUOUS_SYMBOLS[symbol]!, at, at + symbol.length);
    }
    if (/[$¥]/.test(this.text)) return notProvided('only a "$" or "¥" sign, which several currencies use; no ISO 4217 code is written');
    return notProvided('no currency code or unambiguous currency sign');
  }

  /** The name on a labelled line, or on the next non-empty line when the label stands alone. */
  party(label: RegExp, what: string): { term: TermResult; lineIndex: number | undefined } {
    for (const [i, line] of this.lines.entries()) {
      const m = label.exec(line.text);
      if (!m) continue;
      const sameLine = m[1]!.trim();
      const target = sameLine ? line : this.lines.slice(i + 1).find((l) => l.text.trim() !== '');
      if (!target) break;
      const name = sameLine || target.text.trim();
      const start = target.at + target.text.indexOf(name, sameLine ? m.index + m[0].length - m[1]!.length : 0);
      return { term: this.found(name, start, start + name.length), lineIndex: i };
    }
    return { term: notProvided(`no labelled ${what} (e.g. "${what === 'seller' ? 'Seller:' : 'Bill to:'}")`), lineIndex: undefined };
  }

  sellerVatId(sellerLine: number | undefined, buyerLine: number | undefined): TermResult {
    const ids = this.lines.flatMap((line, i) => {
      const m = VAT_ID.exec(line.text);
      if (!m || !/\d/.test(m[1]!)) return [];
      const start = line.at + m.index + m[0].length - m[1]!.length;
      return [{ value: m[1]!.replace(/\s/g, ''), start, end: start + m[1]!.length, lineIndex: i, labelledSeller: /\b(seller|supplier|vendor)\b/i.test(line.text) }];
    });
    if (ids.length === 0) return notProvided('no VAT identifier (a VAT label followed by a country prefix and number)');
    const labelled = ids.find((id) => id.labelledSeller);
    // In the seller's block: after the seller label (or from the top) and before the buyer label.
    const inSellerBlock = ids.filter((id) => (sellerLine === undefined || id.lineIndex >= sellerLine) && (buyerLine === undefined || id.lineIndex < buyerLine || (sellerLine !== undefined && sellerLine > buyerLine)));
    const chosen = labelled ?? (inSellerBlock.length === 1 ? inSellerBlock[0] : ids.length === 1 && buyerLine === undefined ? ids[0] : undefined);
    if (!chosen) return notProvided(`${ids.length} VAT identifiers appear and none is placed as the seller's`);
    return this.found(chosen.value, chosen.start, chosen.end);
  }

  /** The last amount on each line the label matches; two different values are ambiguous. */
  total(match: (text: string) => boolean, what: string): TermResult {
    const candidates: Array<{ value: string; start: number; end: number }> = [];
    for (const line of this.lines) {
      if (!match(line.text)) continue;
      const amounts = amountsIn(line.text);
      const last = amounts[amounts.length - 1];
      if (!last) continue;
      if ('reason' in last.read) return notProvided(last.read.reason);
      const start = line.at + last.index;
      candidates.push({ value: last.read.value, start, end: start + last.length });
    }
    if (candidates.length === 0) return notProvided(`no labelled ${what} with an amount`);
    const values = new Set(candidates.map((c) => c.value));
    if (values.size > 1) return notProvided(`several ${what} lines disagree (${[...values].join(', ')})`);
    return this.found(candidates[0]!.value, candidates[0]!.start, candidates[0]!.end);
  }

  lineItems(): ExtractedLine[] {
    const items: ExtractedLine[] = [];
    for (const line of this.lines) {
      if (NET_LABEL.test(line.text) || GRAND_LABEL.test(line.text) || TAX_LABEL.test(line.text)) continue;
      const m = LINE_ITEM.exec(line.text);
      if (!m?.groups || !/[A-Za-z]/.test(m.groups['name']!)) continue;
      const { name, qty, price, amount } = m.groups as Record<'name' | 'qty' | 'price' | 'amount', string>;
      const field = (written: string, from: number): TermResult => {
        const index = line.text.indexOf(written, from);
        const read = readAmount(written);
        return 'reason' in read ? notProvided(read.reason) : this.found(read.value, line.at + index, line.at + index + written.length);
      };
      const nameAt = line.text.indexOf(name);
      const qtyAt = line.text.indexOf(qty, nameAt + name.length);
      const priceAt = line.text.indexOf(price, qtyAt + qty.length);
      items.push({
        fields: {
          item_name: this.found(name, line.at + nameAt, line.at + nameAt + name.length),
          quantity: field(qty, qtyAt),
          unit_price: field(price, priceAt),
          line_amount: field(amount, priceAt + price.length),
        },
      });
    }
    return items;
  }
}

const isNetLine = (text: string) => NET_LABEL.test(text);
const isTaxLine = (text: string) => TAX_LABEL.test(text) && !isNetLine(text) && !/\bincl/i.test(text) && !VAT_ID.test(text) && !/\b(?:id|no\.?|number|reg)\b/i.test(text);
const isGrandLine = (text: string) => GRAND_LABEL.test(text) && !isNetLine(text) && !isTaxLine(text) && !/\bsub\s*-?\s*total/i.test(text);

/** The EN 16931 terms of a plain-text invoice (OCR output included). Pure. */
export function readTextInvoice(text: string): InvoiceFields {
  const reader = new TextReader(text);
  const seller = reader.party(SELLER_LABEL, 'seller');
  const buyer = reader.party(BUYER_LABEL, 'buyer');
  const header: Record<HeaderTermKey, TermResult> = {
    invoice_number: reader.invoiceNumber(),
    issue_date: reader.day(ISSUE_LABEL, 'issue date', DUE_LABEL),
    currency: reader.currency(),
    due_date: reader.day(DUE_LABEL, 'due date'),
    seller_name: seller.term,
    seller_vat_id: reader.sellerVatId(seller.lineIndex, buyer.lineIndex),
    buyer_name: buyer.term,
    net_total: reader.total(isNetLine, 'net total'),
    tax_total: reader.total(isTaxLine, 'VAT total'),
    grand_total: reader.total(isGrandLine, 'grand total'),
  };
  // Keep the documented member order whatever order the readers ran in.
  const ordered = Object.fromEntries(HEADER_TERM_KEYS.map((k) => [k, header[k]])) as Record<HeaderTermKey, TermResult>;
  return { header: ordered, lines: reader.lineItems() };
}
