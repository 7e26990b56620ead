import { Decimal } from 'decimal.js';
import { sha256Hex } from '../../../signing/hash.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import type { ParsedFiling, RawFact } from './filing-html.ts';
import { sliceWholeCharacters } from '../../../kernel/whole-characters.ts';

/** The largest scale, either way, a numeric fact is resolved at. */
const MAX_SCALE = 30;

/**
 * Inline XBRL facts resolved per the Inline XBRL 1.1 rules: a nonFraction's displayed text is
 * read by its transformation format, multiplied by 10^scale, and negated when sign="-"; the
 * value is an exact decimal string. Formats outside the supported set are NOT-RESOLVED.
 */

const NUMERIC_FORMATS = {
  dotDecimal: /(^|:)(num-dot-decimal|numdotdecimal|num-dot-decimal-apos)$/,
  commaDecimal: /(^|:)(num-comma-decimal|numcommadecimal)$/,
  zero: /(^|:)(fixed-zero|zerodash|fixed-empty)$/,
};

type Resolved = { value: string } | { unresolved: string };

function readNumber(text: string, format: string | undefined): Resolved {
  const shown = text.trim();
  if (format && NUMERIC_FORMATS.zero.test(format)) return { value: '0' };
  if (format && NUMERIC_FORMATS.commaDecimal.test(format)) {
    const digits = shown.replace(/[ .'\u00a0]/g, '').replace(',', '.');
    return /^\d+(\.\d+)?$/.test(digits) ? { value: digits } : { unresolved: `"${shown}" is not a number in ${format}` };
  }
  if (format === undefined || NUMERIC_FORMATS.dotDecimal.test(format)) {
    const digits = shown.replace(/[ ,'\u00a0]/g, '');
    if (/^\d+(\.\d+)?$/.test(digits)) return { value: digits };
    if (format === undefined && /^[-\u2013\u2014]$/.test(shown)) return { unresolved: 'a dash without the zerodash format' };
    return { unresolved: `"${shown}" is not a number${format ? ` in ${format}` : ''}` };
  }
  return { unresolved: `format ${format} is not supported` };
}

const MAX_TEXT_IN_RECORD = 500;

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function resolveFact(fact: RawFact, filing: ParsedFiling): JsonObject {
  const a = fact.attributes;
  const context = a['contextref'] ? filing.contexts.get(a['contextref']) : undefined;
  const period: JsonObject | null = context ? (context.instant ? { instant: context.instant } : { start: context.start ?? null, end: context.end ?? null }) : null;
  const common: JsonObject = {
    type: fact.kind,
    name: a['name'] ?? '',
    context: a['contextref'] ?? null,
    period,
    ...(fact.hidden ? { hidden: true } : {}),
  };
  if (fact.kind === 'nonNumeric') {
    const text = collapse(fact.text);
    const shortened = text.length > MAX_TEXT_IN_RECORD;
    return { ...common, format: a['format'] ?? null, value: shortened ? `${sliceWholeCharacters(text, MAX_TEXT_IN_RECORD)}…` : text, value_length: text.length, value_sha256: sha256Hex(text), ...(shortened ? { value_truncated: true } : {}) };
  }
  const scale = a['scale'] ?? '0';
  const numeric: JsonObject = { ...common, unit: a['unitref'] ? (filing.units.get(a['unitref']) ?? a['unitref']) : null, decimals: a['decimals'] ?? null, scale, sign: a['sign'] ?? null, format: a['format'] ?? null, displayed: collapse(fact.text) };
  if (a['xsi:nil'] === 'true') return { ...numeric, value: null, nil: true };
  const read = readNumber(fact.text, a['format']);
  if ('unresolved' in read) return { ...numeric, value: null, status: 'NOT-RESOLVED', reason: read.unresolved };
  if (!/^-?\d+$/.test(scale)) return { ...numeric, value: null, status: 'NOT-RESOLVED', reason: `scale "${scale}" is not an integer` };
  // Filings scale by thousands to billions (3 to 9) or percent (-2); 10^999 wrote out a thousand digits a fact.
  if (Math.abs(Number(scale)) > MAX_SCALE) return { ...numeric, value: null, status: 'NOT-RESOLVED', reason: `scale ${scale} is outside -${MAX_SCALE} to ${MAX_SCALE}` };
  let value = new Decimal(read.value).times(new Decimal(10).pow(Number(scale)));
  if (a['sign'] === '-') value = value.negated();
  return { ...numeric, value: value.toFixed() };
}

/** The cover page: dei facts by local name, and the ones every filing reader asks for first. */
export function coverFacts(facts: JsonObject[]): JsonObject {
  const dei = new Map<string, JsonObject>();
  for (const f of facts) {
    const name = f['name'] as string;
    if (name.toLowerCase().startsWith('dei:') && !dei.has(name.slice(4))) dei.set(name.slice(4), f);
  }
  const pick = (local: string): JsonObject => {
    const fact = dei.get(local);
    return fact && fact['value'] !== null ? { status: 'PROVIDED', value: fact['value']!, fact: `dei:${local}` } : { status: 'NOT-PROVIDED', reason: `no dei:${local} fact` };
  };
  return {
    registrant: pick('EntityRegistrantName'),
    cik: pick('EntityCentralIndexKey'),
    document_type: pick('DocumentType'),
    period_end: pick('DocumentPeriodEndDate'),
    fiscal_year_end: pick('CurrentFiscalYearEndDate'),
    fiscal_year_focus: pick('DocumentFiscalYearFocus'),
    fiscal_period_focus: pick('DocumentFiscalPeriodFocus'),
    all_dei: Object.fromEntries([...dei].map(([local, f]) => [local, f['value'] ?? null])),
  };
}
