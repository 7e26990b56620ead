import { z } from 'zod';
import { hex64, rulesetMember } from '../../../kernel/route-kit/schemas.ts';
import { AMOUNT_PATTERN } from '../../../kernel/decimal-amount.ts';
import { CONFORMANCE_RULESET } from '../conformance-standard/standard.ts';

/** Input and record schemas of the governance and bureau routes: the catalogue's exact contract. */
export const amount = z.string().regex(AMOUNT_PATTERN, 'must be a decimal string with at most 6 decimals, e.g. "2.5"');
export const auditRecord = z.object({
  kind: z.literal('bureau.audit'),
  ruleset: rulesetMember(CONFORMANCE_RULESET),
  auditId: z.string(),
  endpoint: z.object({ url: z.string(), method: z.string() }),
  transcriptSha256: hex64,
  evidence_source: z.literal('caller-supplied').optional().describe('The transcript was supplied by the caller, not observed by the bureau (absent in audits sealed before this member existed)'),
  not_performed: z.array(z.object({ check: z.string(), reason: z.string() })).optional(),
  checks: z.array(z.object({ id: z.string(), status: z.enum(['pass', 'fail', 'not-provided']), evidence: z.string().optional() })),
  score: z.object({ passed: z.number().int(), failed: z.number().int(), notProvided: z.number().int(), assessed: z.number().int(), ratio: z.number().nullable() }),
  defects: z.array(z.string()),
  outcome: z.enum(['CONFORMANT', 'NON-CONFORMANT', 'INSUFFICIENT-DATA']),
  auditedAt: z.number().int(),
});

