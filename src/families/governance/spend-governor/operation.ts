import { z } from 'zod';
import { ownerProofMessage, ownerProofRefusal } from './owner-proof.ts';
import { SIGNED_PROOF_WINDOW_SECONDS } from '../../../kernel/offline-signatures.ts';
import { governanceReserve, governanceSettle, readGovernorState } from './commands.ts';
import { governorRulesDocument } from './rules.ts';
import { governorStateView, AGENT_ID_PATTERN, agentOfLease, GOVERNOR_RULESET } from './decider.ts';
import { type JsonObject } from '../../../signing/rfc8785.ts';
import { rulesetMember, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { freeRoute, pricedOperation, type Route } from '../../../kernel/operation.ts';
import type { FreeResponse } from '../../../kernel/operation.ts';
import { verifyResultSchema } from '../../../kernel/route-kit/verify-route.ts';
import { recheck, recheckInput } from '../shared/recheck.ts';
import { amount } from '../shared/schemas.ts';

/**
 * A decimal amount above zero, as a pattern the published schema carries too: a client that
 * generates values from /openapi.json never produces one the service refuses.
 */
const POSITIVE_AMOUNT = /^(?:[1-9]\d{0,14}(?:\.\d{1,6})?|0\.(?:[1-9]\d{0,5}|0[1-9]\d{0,4}|00[1-9]\d{0,3}|000[1-9]\d{0,2}|0000[1-9]\d?|00000[1-9]))$/;
export const positiveAmount = z.string().regex(POSITIVE_AMOUNT, 'must be a decimal string above 0 with at most 6 decimals, e.g. "2.5"');

export const agentId = z.string().regex(AGENT_ID_PATTERN, 'must be 1-64 characters: letters, digits and . _ - (starting with a letter or digit)');

export const leaseId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}:[0-9a-f]{24}$/, 'must be a lease_id returned by /v1/governance/reserve (agent_id:24 hex characters)')
  .refine((v) => agentOfLease(v) !== undefined, 'must be a lease_id returned by /v1/governance/reserve');

const budgetView = z.object({ cap: z.string(), period: z.number().int(), windowStart: z.number().int(), windowEnd: z.number().int() });

export const leaseRecord = z.object({
  kind: z.literal('governance.lease'),
  ruleset: rulesetMember(GOVERNOR_RULESET),
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
  ruleset: rulesetMember(GOVERNOR_RULESET),
  outcome: z.literal('SETTLED'),
  agent_id: z.string(),
  lease_id: z.string(),
  reserved_amount: z.string(),
  actual_amount: z.string(),
  released_amount: z.string(),
  reservedAt: z.number().int(),
  settledAt: z.number().int(),
});

const reserve = pricedOperation({
    id: 'governance.reserve',
    method: 'POST',
    path: '/v1/governance/reserve',
    family: 'governance',
    priceUsd: '0.02',
    summary: 'Atomic reserved lease (spend governor).',
    description:
      "Reserves `amount` of an agent's budget for ttl_seconds, atomically against the cap of the current period (rules: GET /v1/governance/standard). The first reserve of an agent opens its budget and makes the payer its owner; other payers are refused 403 before settlement, free. BUDGET-EXCEEDED when it does not fit. The signed lease is under evidenceCore (governance key).",
    inputFrom: 'json',
    input: z
      .object({
        agent_id: agentId,
        amount: positiveAmount,
        purpose: z.string().min(1).max(200),
        ttl_seconds: z.number().int().min(1).max(2_592_000),
        budget: z.object({ cap: positiveAmount, period: z.number().int().min(60).max(31_622_400) }).strict().optional(),
      })
      .strict(),
    example: { agent_id: 'research-agent-7', amount: '1.25', purpose: 'search API calls', ttl_seconds: 600, budget: { cap: '20', period: 86_400 } },
    output: signedResponse(leaseRecord, 'evidenceCore'),
    keyFamily: 'governance',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/governance/verify',
    command: governanceReserve,
  });

const settle = pricedOperation({
    id: 'governance.settle',
    method: 'POST',
    path: '/v1/governance/settle',
    family: 'governance',
    priceUsd: '0.02',
    summary: 'Settles a lease; idempotent.',
    description:
      'Settles an open lease at actual_amount <= the reserved amount and releases the rest. Settling a settled lease again with the same amount returns the original receipt unchanged and counts once. Owner only (403 before settlement otherwise). Expired leases are released and cannot be settled. The signed receipt is under evidenceCore (governance key).',
    inputFrom: 'json',
    input: z.object({ lease_id: leaseId, actual_amount: amount }).strict(),
    example: { lease_id: 'research-agent-7:0123456789abcdef01234567', actual_amount: '0.9' },
    output: signedResponse(settlementRecord, 'evidenceCore'),
    keyFamily: 'governance',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/governance/verify',
    async precheckState(input, deps) {
      const agentId = agentOfLease(input.lease_id);
      const state = agentId === undefined ? undefined : await readGovernorState(deps.store, agentId);
      if (state?.leases.has(input.lease_id)) return undefined;
      return { status: 422, error: 'lease_not_found', message: `lease ${input.lease_id} does not exist; nothing was quoted or charged`, outcome: 'NOT-FOUND', issues: [{ path: 'lease_id', message: 'no such lease' }] };
    },
    command: governanceSettle,
  });

const governanceVerify = freeRoute({
    id: 'governance.verify',
    method: 'POST',
    path: '/v1/governance/verify',
    family: 'governance',
    summary: 'Re-checks a lease or settle receipt.',
    description:
      'Re-checks a lease (reserve) or settlement record: send the evidenceCore as an object (or body: the same as JSON text), sha256 and signature. Re-canonicalises (RFC 8785), recomputes SHA-256 and checks the Ed25519 signature with the governance key. Any change gives valid=false.',
    inputFrom: 'query-or-json',
    input: recheckInput,
    output: verifyResultSchema,
    handle: recheck(['governance.lease', 'governance.settlement']),
  });

const governanceState = freeRoute({
    id: 'governance.state',
    method: 'GET',
    path: '/v1/governance/state/:agent_id',
    family: 'governance',
    summary: "Whether an agent is governed; its budget, spend and leases to its owner only.",
    description: `Anyone learns only whether the agent exists ({found, agent_id}). The owner (the payer that opened the agent's budget) sees the budget and its current period: reserved (open, unexpired leases), spent (settled), available, and the open leases, read from the agent's own stream. To prove ownership, send query parameters signed_at (Unix seconds, within ${SIGNED_PROOF_WINDOW_SECONDS} s of the service's clock) and owner_signature: the EIP-191 personal_sign by the owner address of the text "${ownerProofMessage('<agent_id>', 0).replace(/0$/, '<signed_at>')}". A proof that is stale, forged or by another address is refused with 403.`,
    inputFrom: 'query-or-path',
    input: z.object({
      agent_id: agentId,
      signed_at: z.string().regex(/^\d{1,12}$/, 'must be Unix seconds').optional(),
      owner_signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte EIP-191 signature, 0x-prefixed hex').optional(),
    }).refine((v) => (v.signed_at === undefined) === (v.owner_signature === undefined), { message: 'signed_at and owner_signature go together', path: ['owner_signature'] }),
    output: z.object({ found: z.boolean(), agent_id: z.string() }).loose(),
    async handle(input, deps): Promise<FreeResponse> {
      const state = await readGovernorState(deps.store, input.agent_id);
      // The route reads the clock; the fold it feeds stays pure.
      const now = Math.floor(Date.now() / 1000);
      const view = governorStateView(state, now);
      if (!view || !state.budget) return { body: { found: false, agent_id: input.agent_id } };
      if (input.owner_signature === undefined || input.signed_at === undefined) return { body: { found: true, agent_id: input.agent_id } };
      const refusal = ownerProofRefusal(input.agent_id, Number(input.signed_at), input.owner_signature, state.budget.owner, now);
      if (refusal) return { status: 403, body: { error: 'forbidden', message: refusal, agent_id: input.agent_id } };
      const body: JsonObject = { found: true, ...view };
      return { body, headers: { 'Cache-Control': 'private, no-store' } };
    },
  });

const governanceStandard = freeRoute({
    id: 'governance.standard',
    method: 'GET',
    path: '/v1/governance/standard',
    family: 'governance',
    summary: "The spend governor's rules.",
    description: 'The versioned rules the spend governor applies: ownership, budget periods, atomic reserve, expiry, settlement.',
    output: z.looseObject({ version: z.string() }),
    async handle() {
      return { body: governorRulesDocument() };
    },
  });

export const spendGovernor: Route[] = [reserve, settle, governanceVerify, governanceState, governanceStandard];
