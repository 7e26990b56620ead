import { z } from 'zod';
import { pricedOperation, type Refusal, type Route } from '../../../kernel/operation.ts';
import { MAX_JSON_DEPTH, jsonTextDepth } from '../../../kernel/json.ts';
import { jsonObject } from '../../../kernel/route-kit/schemas.ts';
import { fromLazyUtilityEngine, utilityReceiptResponse } from '../utils-verify/receipt-schema.ts';
import { CLEANUP_FORMATS, formatOf, SCHEMA_CLEANUP_OUTCOMES, SCHEMA_CLEANUP_RULESET } from './vocabulary.ts';

const schemaCleanupInput = z
  .object({
    input: z.string().min(1).max(500_000).describe('Messy JSON, or CSV with any common delimiter, as text'),
    format: z.enum(CLEANUP_FORMATS).optional().describe('auto (default): JSON when the text starts with { or [, CSV otherwise'),
  })
  .strict();

const findings = {
  outcome: z.enum(SCHEMA_CLEANUP_OUTCOMES),
  format_detected: z.enum(['json', 'csv']),
  reason: z.string().optional(),
  delimiter: z.string().optional(),
  quote: z.string().optional(),
  linebreak: z.string().optional(),
  parse_errors: z.array(z.object({ row: z.number().int().nullable(), code: z.string(), message: z.string() })).optional().describe('The first 100 errors of the CSV parser'),
  parse_error_count: z.number().int().optional().describe('All errors of the CSV parser'),
  row_count: z.number().int(),
  columns: z.array(z.string()),
  schema: jsonObject.nullable().describe('The inferred JSON Schema (draft 2020-12) of the clean rows'),
  change_count: z.number().int().describe('Every change made'),
  change_counts: z.record(z.string(), z.number().int()).describe('Every change made, per kind'),
  changes_listed: z.number().int().describe('How many changes the output lists: at most the first 100 of each kind'),
  ambiguity_count: z.number().int(),
  ambiguities_listed: z.number().int().describe('How many ambiguities the output lists: at most the first 100'),
  evidence_source: z.literal('caller-supplied'),
  limitations: z.array(z.string()),
};

const schemaCleanup = pricedOperation({
  id: 'utils.schema-cleanup',
  method: 'POST',
  path: '/v1/utils/schema-cleanup',
  family: 'documents',
  priceUsd: '0.05',
  summary: 'Normalises messy JSON or CSV.',
  description: `Cleans tabular data (rule ${SCHEMA_CLEANUP_RULESET.id}/${SCHEMA_CLEANUP_RULESET.version}): a byte-order mark removed; messy JSON repaired (jsonrepair); CSV parsed with delimiter and quote detection (papaparse), quoted newlines kept; headers normalised to unique snake_case; types inferred (integers, decimals, booleans, ISO 8601 dates, empty as null); a short CSV row keeps only the fields it has; numbers a double cannot carry exactly as written (integers beyond 2^53, JSON decimals whose double prints as another decimal, CSV decimals of more than 15 significant digits) kept as written, as strings, and listed; unambiguous dates in other formats normalised to ISO 8601, ambiguous ones (03/04/2026) kept as written and listed. The output beside the receipt is RFC 8785 JSON {rows, schema (JSON Schema 2020-12), changes (with row and column; the first 100 of each kind, all of them counted in the record), ambiguities (the first 100)}. Outcome: CLEANED, UNCHANGED, NOT-TABULAR (JSON that is not objects), UNREPAIRABLE. JSON nested deeper than ${MAX_JSON_DEPTH} levels is 422 before the quote.`,
  inputFrom: 'json',
  input: schemaCleanupInput,
  example: { input: '\uFEFFName;Birth Date;Amount\n"Smith; J";25/12/1990;"12,50"\n"multi\nline";2026-03-04;7\n', format: 'auto' },
  output: utilityReceiptResponse('utils.schema-cleanup', findings),
  keyFamily: 'utils',
  signedMember: null,
  verifyPath: '/v1/utils/verify',
  // Decided by the input alone, before the quote: cleaning walks the parsed JSON, and a document
  // nested thousands of levels deep overflowed the stack after the caller had paid.
  precheck(input) {
    if (formatOf(input) !== 'json') return undefined;
    const depth = jsonTextDepth(input.input);
    if (depth > MAX_JSON_DEPTH) return tooCostly('too_deeply_nested', `the JSON nests ${depth} levels deep; at most ${MAX_JSON_DEPTH} are cleaned`);
    // jsonrepair strips each trailing comma by copying all it has written: 50,000 took 15 s.
    const trailing = input.input.match(TRAILING_COMMA)?.length ?? 0;
    if (trailing > MAX_TRAILING_COMMAS) return tooCostly('too_many_repairs', `the JSON has ${trailing} trailing commas; at most ${MAX_TRAILING_COMMAS} are repaired`);
    return undefined;
  },
  command: fromLazyUtilityEngine(async () => (await import('./engine.ts')).runSchemaCleanup),
  outputBeside: true,
});

export const schemaCleanupRoutes: Route[] = [schemaCleanup];

const TRAILING_COMMA = /,\s*[}\]]/g;
export const MAX_TRAILING_COMMAS = 2_000;

function tooCostly(error: string, message: string): Refusal {
  return { status: 422, error, message, outcome: 'INVALID-INPUT', issues: [{ path: 'input', message }] };
}
