import { z } from 'zod';
import { hex64, jsonValue, signatureEnvelope } from '../../kernel/route-kit/schemas.ts';
import { AMOUNT_PATTERN, parseAmount } from '../../kernel/decimal-amount.ts';
import { AGENT_ID_PATTERN, agentOfLease } from '../../engines/governance/spend-governor.ts';

/** Input and record schemas of the governance and bureau routes: the catalogue's exact contract. */
export const amount = z.string().regex(AMOUNT_PATTERN, 'must be a decimal string with at most 6 decimals, e.g. "2.5"');
export const positiveAmount = amount.refine((v) => (parseAmount(v) ?? 1n) > 0n, 'must be greater than 0');
export const agentId = z.string().regex(AGENT_ID_PATTERN, 'must be 1-64 characters: letters, digits and . _ - (starting with a letter or digit)');
export const leaseId = z.string().max(100).refine((v) => agentOfLease(v) !== undefined, 'must be a lease_id returned by /v1/governance/reserve');

const budgetView = z.object({ cap: z.string(), period: z.number().int(), windowStart: z.number().int(), windowEnd: z.number().int() });
export const leaseRecord = z.object({
  kind: z.literal('governance.lease'),
  rules: z.string(),
  outcome: z.enum(['RESERVED', 'BUDGET-EXCEEDED']),
  agent_id: z.string(),
  amount: z.string(),
  purpose: z.string(),
  lease_id: z.string().optional().describe('RESERVED only'),
  reservedAt: z.number().int().optional().describe('RESERVED only'),
  expiresAt: z.number().int().optional().describe('RESERVED only'),
  requestedAt: z.number().int().optional().describe('BUDGET-EXCEEDED only'),
  budget: budgetView,
  reserved: z.string(),
  spent: z.string(),
  available: z.string(),
});
export const settlementRecord = z.object({
  kind: z.literal('governance.settlement'),
  rules: z.string(),
  outcome: z.literal('SETTLED'),
  agent_id: z.string(),
  lease_id: z.string(),
  reserved_amount: z.string(),
  actual_amount: z.string(),
  released_amount: z.string(),
  reservedAt: z.number().int(),
  settledAt: z.number().int(),
});

export const headers = z.record(z.string(), z.union([z.string(), z.array(z.string())]));
const httpCapture = z.object({ status: z.number().int().min(100).max(599), headers, body: jsonValue.optional() }).strict();
export const auditInput = z
  .object({
    endpoint: z.object({ url: z.url(), method: z.string().regex(/^[A-Za-z]{3,7}$/, 'must be an HTTP method') }).strict(),
    challenge: httpCapture,
    paid: httpCapture.optional(),
    publicKey: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be a 32-byte Ed25519 public key in hex').optional(),
    signedMember: z.string().min(1).max(64).optional(),
  })
  .strict();
export const auditRecord = z.object({
  kind: z.literal('bureau.audit'),
  standard: z.string(),
  auditId: z.string(),
  endpoint: z.object({ url: z.string(), method: z.string() }),
  transcriptSha256: hex64,
  checks: z.array(z.object({ id: z.string(), status: z.enum(['pass', 'fail', 'not-provided']), evidence: z.string().optional() })),
  score: z.object({ passed: z.number().int(), failed: z.number().int(), notProvided: z.number().int(), assessed: z.number().int(), ratio: z.number().nullable() }),
  defects: z.array(z.string()),
  outcome: z.enum(['CONFORMANT', 'NON-CONFORMANT', 'INSUFFICIENT-DATA']),
  auditedAt: z.number().int(),
});

const checkList = z.array(z.object({ id: z.string(), status: z.enum(['pass', 'fail', 'not-provided']), evidence: z.string().optional() }));
const scoreSchema = z.object({ passed: z.number().int(), failed: z.number().int(), notProvided: z.number().int(), assessed: z.number().int(), ratio: z.number().nullable() });
export const receiptCheckRecord = z.object({
  kind: z.literal('bureau.receipt-check'),
  standard: z.string(),
  artefact: z.enum(['offer', 'receipt']),
  format: z.enum(['jws', 'eip712']).nullable(),
  resourceUrl: z.string().nullable(),
  payload: z.record(z.string(), z.json()).nullable(),
  recoveredSigner: z.string().optional(),
  checks: checkList,
  score: scoreSchema,
  defects: z.array(z.string()),
  outcome: z.enum(['CONFORMANT', 'NON-CONFORMANT', 'INSUFFICIENT-DATA']),
  checkedAt: z.number().int(),
});
export const reputationRecord = z.object({
  kind: z.literal('bureau.reputation'),
  rules: z.string(),
  endpoint: z.string(),
  minObservations: z.number().int(),
  observations: z.object({ supplied: z.number().int(), accepted: z.number().int(), rejected: z.array(z.object({ index: z.number().int(), reason: z.string() })) }),
  observationsSha256: z.array(z.string()),
  assessedAt: z.number().int(),
  outcome: z.enum(['GOOD', 'FAIR', 'POOR', 'INSUFFICIENT-DATA']),
  reason: z.string().optional().describe('INSUFFICIENT-DATA only'),
  firstObservedAt: z.number().int().optional(),
  lastObservedAt: z.number().int().optional(),
  passRate: z.number().optional(),
  trend: z.object({ earlierPassRate: z.number(), laterPassRate: z.number(), delta: z.number(), direction: z.enum(['improving', 'declining', 'stable']) }).optional(),
  openDefects: z.array(z.string()).optional(),
});

export const integerText = (fallback: string, max: number) =>
  z.string().default(fallback).pipe(z.string().regex(/^\d{1,6}$/, 'must be a positive integer')).transform(Number).pipe(z.number().int().min(1).max(max));

export const anchorView = z.object({ evidenceCore: z.object({ kind: z.literal('bureau.anchor'), tree: z.string(), treeSize: z.number().int(), rootHash: hex64 }), ...signatureEnvelope });
export const proofSchema = z.object({ leafIndex: z.number().int().min(0), treeSize: z.number().int().min(1), auditPath: z.array(z.string()).max(64) }).strict();
export const corpusItem = z.object({ leafIndex: z.number().int(), auditId: z.string(), evidenceCore: auditRecord, sha256: hex64, ed25519Sig: z.string(), keyId: z.string(), inclusionProof: proofSchema });
