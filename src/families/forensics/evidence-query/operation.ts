import { z } from 'zod';
import { evidenceQueryCommand } from './command.ts';
import { EVIDENCE_RECEIPT_RULESET, MERKLE_SCHEME } from './engine.ts';
import { evidenceQueryInputSchema } from './input.ts';
import { hex64, rulesetMember, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';

const receiptSchema = z.object({
  kind: z.literal('evidence.receipt'),
  ruleset: rulesetMember(EVIDENCE_RECEIPT_RULESET),
  merkle_scheme: z.literal(MERKLE_SCHEME),
  outcome: z.enum(['BOUND', 'PARTIAL', 'NOT-FOUND']),
  requested_count: z.number().int(),
  found_count: z.number().int(),
  entries: z.array(z.object({ entryId: hex64, sha256: hex64 })).describe('Found entries in entryId order, each with the SHA-256 of its sealed record'),
  not_found: z.array(hex64).describe('Requested ids with no sealed entry (NOT-FOUND)'),
  merkle_root: hex64.nullable(),
});

/** The entry id of the evidence-ingest example's sealed record (a test holds the two together). */
const EXAMPLE_ENTRY_ID = '207ecbf8461c7681c1c39ca063baf21072ac91953a5daa23de3b98623d497009';

const evidenceQueryOperation = pricedOperation({
    id: 'evidence.query',
    method: 'POST',
    path: '/v1/evidence/query',
    family: 'forensics',
    priceUsd: '0.15',
    summary: 'Binds a set of sealed entries into one signed receipt.',
    description:
      'The receipt holds the sorted, deduplicated entry ids with the SHA-256 of each sealed record, a Merkle root over them, and the ids not found (NOT-FOUND). It carries no timestamp: the same set, in any order and with duplicates, gives byte-identical receipts, digests and signatures. The example asks for the entry that the evidence-ingest example seals: until that has been sent, it answers NOT-FOUND.',
    inputFrom: 'json',
    input: evidenceQueryInputSchema,
    example: { entryIds: [EXAMPLE_ENTRY_ID] },
    output: signedResponse(receiptSchema, 'receipt'),
    keyFamily: 'evidence',
    signedMember: 'receipt',
    verifyPath: '/v1/evidence/verify',
    command: evidenceQueryCommand,
  });

export const evidenceQuery: Route[] = [evidenceQueryOperation];
