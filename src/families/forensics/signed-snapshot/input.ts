import { z } from 'zod';
import { jsonData } from '../../../kernel/json.ts';

/** The largest Unix second a caller may state: beyond it a stamp is malformed, not far future. */
export const MAX_UNIX_SECONDS = 99_999_999_999;

export const signedSnapshotInputSchema = z
  .object({
    series: z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters').describe('Name of the series, e.g. "ECB EUR/USD reference rate, daily"'),
    rows: z.array(jsonData).max(10_000, 'must hold at most 10000 rows').describe('Series rows; usable rows are objects with at least one numeric member'),
    citations: z.array(jsonData).max(500, 'must hold at most 500 citations').describe('Source citations: http(s) URLs, or objects with url or doi'),
    fetchedAt: z
      .number()
      .int()
      .min(0)
      .max(MAX_UNIX_SECONDS, 'must be Unix seconds (this looks like milliseconds)')
      .optional()
      .describe('Unix seconds at which the caller fetched the data; freshness is NOT-PROVIDED without it'),
  })
  .strict();

export type SignedSnapshotInput = z.infer<typeof signedSnapshotInputSchema>;
