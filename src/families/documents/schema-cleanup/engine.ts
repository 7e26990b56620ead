import { jsonrepair } from 'jsonrepair';
import Papa from 'papaparse';
import type { CommandResult } from '../../../kernel/operation.ts';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { utilityReceipt } from '../utility-receipt.ts';
import { quoteUnsafeIntegers } from './big-integers.ts';
import { isCalendarDate } from '../../../kernel/calendar.ts';

export const SCHEMA_CLEANUP_RULESET = { id: 'schema-cleanup', version: '1' } as const;
const MAX_CHANGES_LISTED = 2_000;

export interface SchemaCleanupInput {
  input: string;
  format?: 'json' | 'csv' | 'auto' | undefined;
}

interface Change {
  row: number | null;
  column: string | null;
  from: JsonValue;
  to: JsonValue;
  rule: string;
}

type Cell = string | number | boolean | null | JsonValue;
type ColumnType = 'integer' | 'number' | 'boolean' | 'date' | 'string' | 'null';

/** The cleaning itself: text in, rows, schema and every change out. */
export function cleanUp(input: SchemaCleanupInput): { format: 'json' | 'csv'; delimiter: string | null; headers: string[]; rows: JsonObject[]; changes: Change[]; schema: JsonObject; unusable: string | null } {
  const changes: Change[] = [];
  let text = input.input;
  if (text.startsWith('\uFEFF')) {
    text = text.slice(1);
    changes.push({ row: null, column: null, from: 'U+FEFF', to: '', rule: 'removed the byte order mark' });
  }
  const format = input.format && input.format !== 'auto' ? input.format : /^\s*[[{]/.test(text) ? 'json' : 'csv';
  const table = format === 'json' ? tableFromJson(text, changes) : tableFromCsv(text, changes);
  if ('unusable' in table) return { format, delimiter: null, headers: [], rows: [], changes, schema: schemaOf([], {}), unusable: table.unusable };
  const headers = normaliseHeaders(table.headers, changes);
  const types: Record<string, ColumnType> = {};
  const columns = headers.map((h, c) => table.rows.map((r) => r[c] ?? null));
  const rows: JsonObject[] = table.rows.map(() => ({}));
  headers.forEach((header, c) => {
    // A semicolon (or tab, pipe) separated file may write decimals with a comma: 1200,50.
    const typed = typeColumn(columns[c]!, header, changes, format === 'csv' && table.delimiter !== ',');
    types[header] = typed.type;
    typed.values.forEach((v, r) => (rows[r]![header] = v));
  });
  return { format, delimiter: table.delimiter, headers, rows, changes, schema: schemaOf(headers, types), unusable: null };
}

function tableFromJson(text: string, changes: Change[]): { headers: string[]; rows: Cell[][]; delimiter: null } | { unusable: string } {
  let valid = text;
  try {
    JSON.parse(text);
  } catch {
    try {
      valid = jsonrepair(text);
    } catch (err) {
      return { unusable: `not JSON, and not repairable: ${(err as Error).message}` };
    }
    changes.push({ row: null, column: null, from: 'malformed JSON', to: 'valid JSON', rule: 'repaired the JSON syntax (quotes, commas, brackets, comments, trailing text)' });
  }
  const { text: safe, quoted } = quoteUnsafeIntegers(valid);
  for (const literal of quoted) changes.push({ row: null, column: null, from: literal, to: literal, rule: 'kept an integer beyond 2^53 as a string, digit for digit' });
  let parsed = JSON.parse(safe) as JsonValue;
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) parsed = [parsed];
  if (!Array.isArray(parsed) || parsed.length === 0) return { unusable: 'the JSON is not a list of records (an array of objects, or one object)' };
  if (parsed.every(Array.isArray)) {
    const [head, ...body] = parsed as JsonValue[][];
    changes.push({ row: null, column: null, from: 'array of arrays', to: 'records', rule: 'took the first array as the header row' });
    return { headers: head!.map((h) => String(h)), rows: body, delimiter: null };
  }
  if (!parsed.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r))) return { unusable: 'the JSON array mixes records with other values' };
  const records = parsed as JsonObject[];
  const headers = [...new Set(records.flatMap((r) => Object.keys(r)))];
  return { headers, rows: records.map((r) => headers.map((h) => (h in r ? r[h]! : null))), delimiter: null };
}

function tableFromCsv(text: string, changes: Change[]): { headers: string[]; rows: Cell[][]; delimiter: string } | { unusable: string } {
  const parsed = Papa.parse<string[]>(text, { delimiter: '', delimitersToGuess: [',', ';', '\t', '|'], quoteChar: '"', skipEmptyLines: 'greedy', header: false });
  const data = parsed.data;
  if (data.length < 1 || data[0]!.length === 0) return { unusable: 'no rows' };
  const [head, ...body] = data;
  const width = head!.length;
  body.forEach((row, r) => {
    if (row.length !== width) changes.push({ row: r, column: null, from: row.length, to: width, rule: row.length < width ? 'padded a short row with nulls' : 'dropped cells beyond the header' });
  });
  return { headers: head!, rows: body.map((row) => Array.from({ length: width }, (_, c) => row[c] ?? null)), delimiter: parsed.meta.delimiter };
}

function normaliseHeaders(raw: string[], changes: Change[]): string[] {
  const seen = new Map<string, number>();
  return raw.map((original, c) => {
    let name = String(original)
      .normalize('NFKC')
      .trim()
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '_')
      .replace(/^_+|_+$/g, '');
    if (name === '') name = `column_${c + 1}`;
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    if (count > 1) name = `${name}_${count}`;
    if (name !== original) changes.push({ row: null, column: name, from: original, to: name, rule: 'normalised the header to snake_case' });
    return name;
  });
}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A date in one of the unambiguous forms, as ISO 8601; `ambiguous` when day and month could swap. */
function asIsoDate(text: string): { iso: string; rule: string } | 'ambiguous' | undefined {
  let m: RegExpExecArray | null;
  const valid = isCalendarDate;
  const iso = (y: number, mo: number, d: number) => `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
  if (ISO_DATE.test(text)) {
    const [y, mo, d] = text.split('-').map(Number) as [number, number, number];
    return valid(y, mo, d) ? { iso: text, rule: 'ISO 8601 date' } : undefined;
  }
  if ((m = /^(\d{4})[/.](\d{1,2})[/.](\d{1,2})$/.exec(text))) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    return valid(y, mo, d) ? { iso: iso(y, mo, d), rule: 'YYYY/MM/DD to ISO 8601' } : undefined;
  }
  if ((m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(text))) {
    // Dots are the day-first convention (DIN 5008 and most of Europe).
    const [d, mo, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
    return valid(y, mo, d) ? { iso: iso(y, mo, d), rule: 'DD.MM.YYYY to ISO 8601' } : undefined;
  }
  if ((m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text))) {
    const [a, b, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (a > 12 && valid(y, b, a)) return { iso: iso(y, b, a), rule: 'DD/MM/YYYY (day above 12) to ISO 8601' };
    if (b > 12 && valid(y, a, b)) return { iso: iso(y, a, b), rule: 'MM/DD/YYYY (day above 12) to ISO 8601' };
    return valid(y, a, b) || valid(y, b, a) ? 'ambiguous' : undefined;
  }
  return undefined;
}

const DECIMAL_COMMA = /^[+-]?(\d{1,3}(\.\d{3})+|\d+),\d+$/;
const fromDecimalComma = (t: string) => t.replaceAll('.', '').replace(',', '.');

function kindOf(value: Cell, decimalComma: boolean): ColumnType {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value !== 'string') return 'string';
  const t = value.trim();
  if (t === '') return 'null';
  if (INTEGER.test(t)) return 'integer';
  if (DECIMAL.test(t)) return 'number';
  if (decimalComma && DECIMAL_COMMA.test(t)) return 'number';
  if (/^(true|false)$/i.test(t)) return 'boolean';
  const date = asIsoDate(t);
  return date && date !== 'ambiguous' ? 'date' : 'string';
}

/** One type per column: the values' common type, widened integer -> number; anything else stays text. */
function typeColumn(values: Cell[], column: string, changes: Change[], decimalComma: boolean): { type: ColumnType; values: JsonValue[] } {
  const kinds = new Set(values.map((v) => kindOf(v, decimalComma)).filter((k) => k !== 'null'));
  const type: ColumnType = kinds.size === 0 ? 'null' : kinds.size === 1 ? [...kinds][0]! : [...kinds].every((k) => k === 'integer' || k === 'number') ? 'number' : 'string';
  const out = values.map((value, row): JsonValue => {
    const change = (to: JsonValue, rule: string) => {
      changes.push({ row, column, from: value as JsonValue, to, rule });
      return to;
    };
    if (value === null) return null;
    if (typeof value === 'string' && value.trim() === '') return change(null, 'empty as null');
    if (type === 'string') {
      if (typeof value === 'string') {
        if (value !== value.trim()) return change(value.trim(), 'trimmed surrounding whitespace');
        const date = asIsoDate(value);
        if (date === 'ambiguous') changes.push({ row, column, from: value, to: value, rule: 'left as text: the day and month could be either way round' });
        return value;
      }
      return change(typeof value === 'object' ? JSON.stringify(value) : String(value), `text column: ${Array.isArray(value) ? 'array' : typeof value} written as text`);
    }
    if (typeof value !== 'string') return value as JsonValue;
    const t = value.trim();
    if (type === 'integer') {
      if (!Number.isSafeInteger(Number(t))) return change(t.replace(/^\+/, ''), 'kept an integer beyond 2^53 as a string, digit for digit');
      return change(Number(t), 'text to integer');
    }
    if (type === 'number') {
      if (decimalComma && DECIMAL_COMMA.test(t)) return change(Number(fromDecimalComma(t)), 'decimal comma to number');
      const n = Number(t);
      return change(n, String(n) === t ? 'text to number' : `text to number (${t} has this shortest exact form)`);
    }
    if (type === 'boolean') return change(t.toLowerCase() === 'true', 'text to boolean');
    if (type === 'date') {
      const date = asIsoDate(t) as { iso: string; rule: string };
      return date.iso === value ? value : change(date.iso, date.rule);
    }
    return value;
  });
  return { type, values: out };
}

function schemaOf(headers: string[], types: Record<string, ColumnType>): JsonObject {
  const jsonType = (t: ColumnType): JsonObject =>
    t === 'date' ? { type: ['string', 'null'], format: 'date' } : t === 'null' ? { type: 'null' } : { type: [t === 'integer' ? 'integer' : t, 'null'] };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'array',
    items: { type: 'object', properties: Object.fromEntries(headers.map((h) => [h, jsonType(types[h] ?? 'string')])), additionalProperties: false },
  };
}

export function schemaCleanup(input: SchemaCleanupInput, now: number): CommandResult {
  const result = cleanUp(input);
  const output = `${JSON.stringify(result.rows)}\n`;
  return utilityReceipt({
    utility: 'utils.schema-cleanup',
    now,
    input: input.input,
    output: { content: output, mediaType: 'application/json' },
    ruleset: { ...SCHEMA_CLEANUP_RULESET },
    findings: {
      outcome: result.unusable ? 'INSUFFICIENT-DATA' : 'CLEANED',
      ...(result.unusable ? { reason: result.unusable } : {}),
      format: result.format,
      delimiter: result.delimiter,
      row_count: result.rows.length,
      columns: result.headers,
      schema: result.schema,
      change_count: result.changes.length,
      changes: result.changes.slice(0, MAX_CHANGES_LISTED) as unknown as JsonValue,
      changes_truncated: result.changes.length > MAX_CHANGES_LISTED,
    },
  });
}
