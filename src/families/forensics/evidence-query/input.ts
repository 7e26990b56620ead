import { z } from 'zod';

export const evidenceQueryInputSchema = z
  .object({
    entryIds: z
      .array(z.string().regex(/^[0-9a-f]{64}$/, 'must be an entryId: 64 lowercase hex characters'))
      .min(1, 'must name at least one entry')
      .max(256, 'must name at most 256 entries')
      .describe('entryIds returned by evidence ingest; any order, duplicates allowed'),
  })
  .strict();

export type EvidenceQueryInput = z.infer<typeof evidenceQueryInputSchema>;
