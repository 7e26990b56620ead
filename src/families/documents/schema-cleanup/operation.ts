import { z } from 'zod';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { utilityResponse } from '../utility-receipt.ts';
import { schemaCleanup } from './engine.ts';

const input = z
  .object({
    input: z.string().min(1).max(400_000).describe('Messy JSON, or CSV with any of , ; tab | as delimiter'),
    format: z.enum(['json', 'csv', 'auto']).optional().describe('Default auto: JSON when the text starts with [ or {, else CSV'),
  })
  .strict();

export const schemaCleanupOperation = pricedOperation({
  id: 'utils.schema-cleanup',
  method: 'POST',
  path: '/v1/utils/schema-cleanup',
  family: 'documents',
  priceUsd: '0.05',
  summary: 'Normalises messy JSON or CSV.',
  description:
    'Messy JSON repaired (jsonrepair), CSV parsed with delimiter and quote detection (Papa Parse); a byte order mark removed; headers normalised to snake_case; types inferred per column (integers, decimals, booleans, ISO 8601 dates, empty as null) with integers beyond 2^53 kept as strings and day/month-ambiguous dates left as text. Output: the clean rows (beside the receipt, bound by output_sha256), an inferred JSON Schema 2020-12, and every change with its row and column.',
  inputFrom: 'json',
  input,
  example: { input: '\uFEFFInvoice No;Issue Date;Amount;Paid\n"INV-1";31.12.2025;"1200,50";true\nINV-2;2026/01/15;99;false\n', format: 'csv' },
  output: utilityResponse('utils.schema-cleanup', { outcome: z.enum(['CLEANED', 'INSUFFICIENT-DATA']), row_count: z.number().int(), columns: z.array(z.string()), schema: z.looseObject({}), changes: z.array(z.looseObject({})) }),
  keyFamily: 'utils',
  signedMember: null,
  verifyPath: '/v1/utils/verify',
  outputBeside: true,
  command: { execute: async (i, ctx) => schemaCleanup(i, ctx.now) },
});

export const schemaCleanupRoutes: Route[] = [schemaCleanupOperation];
