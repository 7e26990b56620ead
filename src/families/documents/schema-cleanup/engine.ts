import { jsonrepair } from 'jsonrepair';
import Papa from 'papaparse';
import type { CommandResult } from '../../../kernel/operation.ts';
import { canonicalText, type JsonObject, type JsonValue } from '../../../signing/rfc8785.ts';
import { readDay } from '../invoice-extract/text-invoice.ts';
import { utilityReceipt } from '../utility-receipt.ts';
import { KeptNumber, readJson, type ReadObject, type ReadValue } from './json-reader.ts';
import { isBeyondSafeInteger } from './numbers.ts';
import { CLEANUP_FORMATS, formatOf, SCHEMA_CLEANUP_RULESET } from './vocabulary.ts';

export interface SchemaCleanupInput {
  input: string;
  format?: (typeof CLEANUP_FORMATS)[number] | undefined;
}

/** One change: row 0 is the header; data rows count from 1; column is the clean column name. */
type Change = {
  row: number | null;
  column: string | null;
  change: string;
  /** Where a JSON number kept as written sits in the output, as a JSON Pointer: nested values share their cell's row and column. */
  path?: string;
  from?: JsonValue;
  to?: JsonValue;
  reason?: string;
};

type Cell = JsonValue;

/**
 * How many changes of one kind the output lists, in the order they were made; the record counts
 * them all. Listing every one made a CSV near the size limit give a 17.7 MB output, and a wide
 * header over short rows (one missing field per column per row) hundreds of megabytes.
 */
export const LISTED_PER_KIND = 100;

class Changes {
  readonly list: JsonObject[] = [];
  /** Per kind: the kinds are the engine's own words, never the caller's. */
  readonly counts: Record<string, number> = {};
  total = 0;

  add(change: Change): void {
    const count = (this.counts[change.change] ?? 0) + 1;
    this.counts[change.change] = count;
    this.total++;
    if (count <= LISTED_PER_KIND) this.list.push(changeJson(change));
  }
}

function changeJson(change: Change): JsonObject {
  const json: JsonObject = { row: change.row, column: change.column };
  if (change.path !== undefined) json['path'] = change.path;
  json['change'] = change.change;
  if (change.from !== undefined) json['from'] = change.from;
  if (change.to !== undefined) json['to'] = change.to;
  if (change.reason !== undefined) json['reason'] = change.reason;
  return json;
}

// ---- headers -----------------------------------------------------------------------------

/**
 * snake_case ASCII names, unique, never empty: what every consumer of the rows can address. A
 * repeated name takes the first free suffix, never a name another header has: numbering blindly
 * named the second of `a,a,a_2` a_2 too, and its values were overwritten.
 */
function normaliseHeaders(raw: string[], changes: Changes): string[] {
  const bases = raw.map((original, index) => {
    const name = original.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
    if (name === '') return `column_${index + 1}`;
    return /^\d/.test(name) ? `c_${name}` : name;
  });
  const taken = new Set(bases);
  const firstSeen = new Set<string>();
  const nextSuffix = new Map<string, number>();
  return bases.map((base, index) => {
    let name = base;
    if (firstSeen.has(base)) {
      let suffix = nextSuffix.get(base) ?? 2;
      while (taken.has(`${base}_${suffix}`)) suffix++;
      name = `${base}_${suffix}`;
      nextSuffix.set(base, suffix + 1);
      taken.add(name);
    }
    firstSeen.add(base);
    const original = raw[index]!;
    if (name !== original) changes.add({ row: 0, column: name, change: 'header-normalised', from: original, to: name });
    return name;
  });
}

// ---- cells -------------------------------------------------------------------------------

const INTEGER = /^[+-]?\d+$/;
const DECIMAL_POINT = /^[+-]?\d+\.\d+$/;
const DECIMAL_COMMA = /^[+-]?\d+,\d+$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?$/;
const DATE_LIKE = /^(?:\d{1,2}[./-]\d{1,2}[./-]\d{4}|\d{4}[./]\d{1,2}[./]\d{1,2}|\d{1,2}\.?\s+[A-Za-z]{3,9}\.?,?\s+\d{4}|[A-Za-z]{3,9}\.?\s+\d{1,2},?\s+\d{4})$/;
const SIGNIFICANT_DIGITS_OF_A_DOUBLE = 15;

/** A decimal is a JSON number only when a double holds every digit written; otherwise it stays text. */
function decimalCell(text: string, row: number, column: string, changes: Changes, from: string): Cell {
  const significant = text.replace(/[-+.]/g, '').replace(/^0+/, '').length;
  if (significant > SIGNIFICANT_DIGITS_OF_A_DOUBLE) {
    changes.add({ row, column, change: 'decimal-kept-as-string', from, to: text });
    return text;
  }
  return Number(text);
}

function dateCell(text: string, row: number, column: string, changes: Changes, ambiguities: Changes): Cell {
  const slashIso = /^(\d{4})[./](\d{1,2})[./](\d{1,2})$/.exec(text);
  const read = slashIso ? readDay(`${slashIso[1]}-${slashIso[2]!.padStart(2, '0')}-${slashIso[3]!.padStart(2, '0')}`) : readDay(text);
  if (read === undefined) return text;
  if ('iso' in read.day) {
    changes.add({ row, column, change: 'date-normalised', from: text, to: read.day.iso });
    return read.day.iso;
  }
  ambiguities.add({ row, column, change: 'date-kept-as-written', from: text, to: read.day.reason });
  return text;
}

/** The typed value of one CSV cell, listing every way its text differs from the value. */
function typeCell(raw: string, row: number, column: string, delimiter: string, changes: Changes, ambiguities: Changes): Cell {
  const text = raw.trim();
  if (text !== raw) changes.add({ row, column, change: 'whitespace-trimmed', from: raw, to: text });
  if (text === '') {
    changes.add({ row, column, change: 'empty-to-null', from: raw, to: null });
    return null;
  }
  if (INTEGER.test(text)) {
    if (isBeyondSafeInteger(text)) {
      changes.add({ row, column, change: 'integer-beyond-2^53-kept-as-string', from: text, to: text });
      return text;
    }
    // A leading zero is part of an identifier (a postcode, an account), not of a number.
    if (/^[+-]?0\d/.test(text)) return text;
    const value = Number(text);
    if (String(value) !== text) changes.add({ row, column, change: 'integer-normalised', from: text, to: value });
    return value;
  }
  if (DECIMAL_POINT.test(text)) return decimalCell(text, row, column, changes, text);
  if (delimiter !== ',' && DECIMAL_COMMA.test(text)) {
    const pointed = text.replace(',', '.');
    changes.add({ row, column, change: 'decimal-comma-to-point', from: text, to: pointed });
    return decimalCell(pointed, row, column, changes, text);
  }
  if (/^(true|false)$/i.test(text)) {
    const value = text.toLowerCase() === 'true';
    if (text !== String(value)) changes.add({ row, column, change: 'boolean-normalised', from: text, to: value });
    return value;
  }
  if (ISO_DATE.test(text) || ISO_DATE_TIME.test(text)) return text;
  if (DATE_LIKE.test(text)) return dateCell(text, row, column, changes, ambiguities);
  return text;
}

// ---- JSON Schema 2020-12 -------------------------------------------------------------------

function jsonType(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function columnSchema(values: JsonValue[]): JsonObject {
  const types = [...new Set(values.map(jsonType))];
  // integer is a subset of number: a column of both is number.
  const merged = types.includes('number') ? types.filter((t) => t !== 'integer') : types;
  const order = ['string', 'integer', 'number', 'boolean', 'object', 'array', 'null'];
  merged.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  const schema: JsonObject = { type: merged.length === 1 ? merged[0]! : merged };
  const strings = values.filter((v): v is string => typeof v === 'string');
  if (strings.length > 0 && strings.length === values.filter((v) => v !== null).length) {
    if (strings.every((s) => ISO_DATE.test(s))) schema['format'] = 'date';
    else if (strings.every((s) => ISO_DATE_TIME.test(s))) schema['format'] = 'date-time';
  }
  return schema;
}

function inferSchema(columns: string[], rows: JsonObject[]): JsonObject {
  // One pass over the rows' own members: filtering the rows once per column was rows x columns,
  // which rows of distinct names made quadratic (20,000 one-member objects took 52 s).
  const values = new Map<string, JsonValue[]>(columns.map((column) => [column, []]));
  for (const row of rows) for (const [column, value] of Object.entries(row)) values.get(column)!.push(value);
  const properties: JsonObject = {};
  for (const column of columns) properties[column] = columnSchema(values.get(column)!);
  const required = columns.filter((c) => values.get(c)!.length === rows.length);
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', items: { type: 'object', properties, required, additionalProperties: false } };
}

// ---- CSV ---------------------------------------------------------------------------------

interface Cleaned {
  rows: JsonObject[];
  columns: string[];
  details: JsonObject;
}

function cleanCsv(text: string, changes: Changes, ambiguities: Changes): Cleaned {
  const parsed = Papa.parse<string[]>(text, { delimiter: '', quoteChar: '"', skipEmptyLines: 'greedy' });
  const delimiter = parsed.meta.delimiter;
  const [headerRow = [], ...dataRows] = parsed.data;
  // Not Math.max(...rows): 150,000 rows as arguments overflow the stack.
  const width = dataRows.reduce((widest, row) => Math.max(widest, row.length), headerRow.length);
  const rawHeaders = Array.from({ length: width }, (_, i) => headerRow[i] ?? '');
  const columns = normaliseHeaders(rawHeaders, changes);
  const rows = dataRows.map((fields, r) => {
    const row: JsonObject = {};
    fields.forEach((raw, c) => {
      row[columns[c]!] = typeCell(raw, r + 1, columns[c]!, delimiter, changes, ambiguities);
    });
    // A short row keeps only what it has, listed once: padding every short row with nulls made a
    // wide header over short rows cost rows x columns (1,000 columns over 2,000 rows of "1": 170 MB, 53 s).
    if (fields.length < width) changes.add({ row: r + 1, column: columns[fields.length]!, change: 'fields-missing', to: width - fields.length });
    return row;
  });
  // Listed in the signed record itself: papaparse reports malformed quotes once or twice a row.
  const parseErrors = parsed.errors.slice(0, LISTED_PER_KIND).map((e) => ({ row: typeof e.row === 'number' ? e.row : null, code: e.code, message: e.message }));
  return { rows, columns, details: { delimiter, quote: '"', linebreak: JSON.stringify(parsed.meta.linebreak).slice(1, -1), parse_errors: parseErrors, parse_error_count: parsed.errors.length } };
}

// ---- JSON --------------------------------------------------------------------------------

/** A JSON Pointer (RFC 6901) from its segments. */
const pointer = (segments: Array<string | number>): string => segments.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

/**
 * The JSON value of what was read: each number a double cannot carry as written becomes its
 * literal, as a string, listed with its place in the output (`at`, the segments of its path).
 */
function settle(value: ReadValue, row: number | null, column: string | null, at: Array<string | number>, changes: Changes): JsonValue {
  if (value instanceof KeptNumber) {
    changes.add({ row, column, path: pointer(at), change: value.kind, from: value.literal, to: value.literal, reason: value.reason });
    return value.literal;
  }
  if (Array.isArray(value)) {
    return value.map((item, index) => {
      at.push(index);
      const settled = settle(item, row, column, at, changes);
      at.pop();
      return settled;
    });
  }
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([name, member]) => {
        at.push(name);
        const settled = settle(member, row, column, at, changes);
        at.pop();
        return [name, settled];
      }),
    );
  }
  return value;
}

const isRecord = (value: ReadValue): value is ReadObject => value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof KeptNumber);

function cleanJson(text: string, changes: Changes): Cleaned | { outcome: 'NOT-TABULAR' | 'UNREPAIRABLE'; reason: string; value?: JsonValue } {
  let source = text;
  try {
    JSON.parse(source);
  } catch {
    try {
      source = jsonrepair(source);
      JSON.parse(source);
      changes.add({ row: null, column: null, change: 'json-repaired', to: 'the text was repaired into valid JSON (jsonrepair): quotes, commas, brackets or comments' });
    } catch (err) {
      return { outcome: 'UNREPAIRABLE', reason: (err as Error).message };
    }
  }
  // Read again, now knowing it is well formed, to see each number as the caller wrote it.
  const parsed = readJson(source);
  const records = Array.isArray(parsed) ? parsed : [parsed];
  if (!records.every(isRecord)) return { outcome: 'NOT-TABULAR', reason: 'the JSON is not an object or an array of objects', value: settle(parsed, null, null, ['value'], changes) };
  const rawColumns = [...new Set(records.flatMap((r) => Object.keys(r)))];
  const columns = normaliseHeaders(rawColumns, changes);
  const columnOf = new Map(rawColumns.map((raw, c) => [raw, columns[c]!]));
  // Each record's own members (`constructor` in a record that lacks it is not Object's), not every
  // column of the document per record, which records of distinct names made quadratic.
  const rows = records.map((record, r) => {
    const row: JsonObject = {};
    for (const [raw, value] of Object.entries(record)) {
      const column = columnOf.get(raw)!;
      row[column] = settle(value, r + 1, column, ['rows', r, column], changes);
    }
    return row;
  });
  return { rows, columns, details: {} };
}

// ---- the utility -------------------------------------------------------------------------

export function runSchemaCleanup(input: SchemaCleanupInput, now: number): CommandResult {
  const changes = new Changes();
  const ambiguities = new Changes();
  let text = input.input;
  if (text.startsWith('\uFEFF')) {
    text = text.slice(1);
    changes.add({ row: null, column: null, change: 'bom-removed', from: 'U+FEFF' });
  }
  const format = formatOf(input);
  const cleaned = format === 'json' ? cleanJson(text, changes) : cleanCsv(text, changes, ambiguities);

  let findings: JsonObject;
  let output: JsonObject;
  if ('outcome' in cleaned) {
    output = { rows: [], schema: null, changes: changes.list, ...(cleaned.value !== undefined ? { value: cleaned.value } : {}) };
    findings = { outcome: cleaned.outcome, format_detected: format, reason: cleaned.reason, row_count: 0, columns: [], schema: null };
  } else {
    const schema = inferSchema(cleaned.columns, cleaned.rows);
    output = { rows: cleaned.rows, schema, changes: changes.list, ambiguities: ambiguities.list };
    findings = { outcome: changes.total > 0 ? 'CLEANED' : 'UNCHANGED', format_detected: format, ...cleaned.details, row_count: cleaned.rows.length, columns: cleaned.columns, schema };
  }
  const limitations = ['Dates whose day and month order the text leaves open (03/04/2026) are kept as written and listed under ambiguities, never guessed.', `The output lists, with row and column, the first ${LISTED_PER_KIND} changes of each kind and the first ${LISTED_PER_KIND} ambiguities; change_counts counts every change. output_sha256 binds the output.`];
  if (changes.list.length < changes.total || ambiguities.list.length < ambiguities.total) {
    limitations.push(`The lists are cut: ${changes.list.length} of ${changes.total} changes and ${ambiguities.list.length} of ${ambiguities.total} ambiguities are listed.`);
  }

  return utilityReceipt({
    utility: 'utils.schema-cleanup',
    now,
    input: input.input,
    output: { content: canonicalText(output), mediaType: 'application/json' },
    ruleset: { ...SCHEMA_CLEANUP_RULESET },
    findings: {
      ...findings,
      change_count: changes.total,
      change_counts: changes.counts,
      changes_listed: changes.list.length,
      ambiguity_count: ambiguities.total,
      ambiguities_listed: ambiguities.list.length,
      evidence_source: 'caller-supplied',
      limitations,
    },
  });
}
