import { z } from 'zod';
import { jsonObjectData } from '../../../kernel/json.ts';

const text = z.string().min(1, 'must not be empty').max(512, 'must be at most 512 characters');

export const evidenceIngestInputSchema = z
  .object({
    action: text.describe('What happened, e.g. "model.deployed" or "invoice.approved"'),
    actor: text.optional().describe('Who did it (a DID, an address, a name)'),
    subject: text.optional().describe('What it was done to'),
    occurredAt: z.number().int().min(0).optional().describe('Unix seconds, as the caller states it (carried, not checked)'),
    payload: jsonObjectData.optional().describe('The evidence itself, any JSON object, carried verbatim'),
    action_hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters')
      .optional()
      .describe('SHA-256 of the action as the caller computed it; derived when omitted'),
  })
  .strict();

export type EvidenceIngestInput = z.infer<typeof evidenceIngestInputSchema>;
