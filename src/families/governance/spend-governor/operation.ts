import { z } from 'zod';
import { ownerOfProof, ownerProofHowTo, readProofs } from './owner-proof.ts';
import { governanceReserve, governanceSettle } from './commands.ts';
import { readGovernorState } from './agent-stream.ts';
import { governorRulesDocument } from './rules.ts';
import { governorStateView, AGENT_ID_PATTERN, agentOfLease, GOVERNOR_RULESET, LEGACY_GOVERNOR_RULESET } from './decider.ts';
import { type JsonObject } from '../../../signing/rfc8785.ts';
import { rulesetMember, signatureEnvelope } from '../../../kernel/route-kit/schemas.ts';
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

const ownerAddress = z.string().regex(/^0x[0-9a-f]{40}$/).describe("The payer whose agent it is (the payment's from address, lowercase)");
const budgetView = z.object({ cap: z.string(), period: z.number().int(), windowStart: z.number().int(), windowEnd: z.number().int() });

const leaseRecordMembers = z.object({
  kind: z.literal('governance.lease'),
  ruleset: rulesetMember(GOVERNOR_RULESET),
  owner: ownerAddress,
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

const settlementRecordMembers = z.object({
  kind: z.literal('governance.settlement'),
  ruleset: rulesetMember(GOVERNOR_RULESET),
  owner: ownerAddress,
  outcome: z.literal('SETTLED'),
  agent_id: z.string(),
  lease_id: z.string(),
  reserved_amount: z.string(),
  actual_amount: z.string(),
  released_amount: z.string(),
  reservedAt: z.number().int(),
  settledAt: z.number().int(),
});

/**
 * A record of ruleset 2, or one of ruleset 1 (signed when the first payer of an agent id owned
 * it: no owner), which a replay or a repeated settlement returns as it was signed.
 */
const legacyRuleset = { ruleset: rulesetMember(LEGACY_GOVERNOR_RULESET) };
export const leaseRecord = z.union([leaseRecordMembers, leaseRecordMembers.omit({ owner: true }).extend(legacyRuleset)]);
export const settlementRecord = z.union([settlementRecordMembers, settlementRecordMembers.omit({ owner: true }).extend(legacyRuleset)]);

const reserve = pricedOperation({
    id: 'governance.reserve',
    method: 'POST',
    path: '/v1/governance/reserve',
    family: 'governance',
    priceUsd: '0.02',
    summary: 'Atomic reserved lease (spend governor).',
    description:
      "Reserves `amount` of the payer's agent's budget for ttl_seconds, atomically against the cap of the current period (rules: GET /v1/governance/standard). An agent is the payer's own (the payment's from address and agent_id): the payer's first reserve of an agent_id opens its budget, whether or not another payer governs an agent of the same id. BUDGET-EXCEEDED when it does not fit. The signed lease, naming its owner, is under evidenceCore (governance key).",
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
    output: z.object({ evidenceCore: leaseRecord, ...signatureEnvelope }),
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
      'Settles an open lease of the payer\'s agent at actual_amount <= the reserved amount and releases the rest. Settling a settled lease again with the same amount returns the original receipt unchanged and counts once. A lease the payer\'s agent does not hold (unknown, or another payer\'s) is 422 NOT-FOUND after the payment is verified and before it is settled: nothing is charged. Expired leases are released and cannot be settled. The signed receipt is under evidenceCore (governance key).',
    inputFrom: 'json',
    input: z.object({ lease_id: leaseId, actual_amount: amount }).strict(),
    example: { lease_id: 'research-agent-7:0123456789abcdef01234567', actual_amount: '0.9' },
    output: z.object({ evidenceCore: settlementRecord, ...signatureEnvelope }),
    keyFamily: 'governance',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/governance/verify',
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
    summary: "A payer's agent: its budget, spend and leases, to that payer only.",
    description: `Agents are per payer, so the route reads the agent of the payer that proves itself: ${ownerProofHowTo('<agent_id>')}. The answer is that payer's agent: its budget and current period, reserved (open, unexpired leases), spent (settled), available and the open leases, or {found: false} when that payer governs no agent of this id. Without a proof: 403 owner_proof_required, saying how to make one. A stale or malformed proof: 403. Nothing is answered about another payer's agents.`,
    inputFrom: 'query-or-path',
    input: z.object({
      agent_id: agentId,
      signed_at: z.string().regex(/^\d{1,12}$/, 'must be Unix seconds').optional(),
      owner_signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/, 'must be a 65-byte EIP-191 signature, 0x-prefixed hex').optional(),
    }).refine((v) => (v.signed_at === undefined) === (v.owner_signature === undefined), { message: 'signed_at and owner_signature go together', path: ['owner_signature'] }),
    output: z.object({ found: z.boolean(), agent_id: z.string(), owner: ownerAddress }).loose(),
    async handle(input, deps, request): Promise<FreeResponse> {
      if (input.owner_signature === undefined || input.signed_at === undefined) {
        return { status: 403, body: { error: 'owner_proof_required', message: `agents are per payer: to read yours, ${ownerProofHowTo(input.agent_id)}`, agent_id: input.agent_id } };
      }
      // The route reads the clock; the fold it feeds stays pure.
      const now = Math.floor(Date.now() / 1000);
      const signedAt = Number(input.signed_at);
      const proof = ownerOfProof(input.agent_id, signedAt, input.owner_signature, now);
      const forbidden = (reason: string): FreeResponse => ({ status: 403, body: { error: 'forbidden', message: `${reason}; to read your agent, ${ownerProofHowTo(input.agent_id)}`, agent_id: input.agent_id } });
      if ('reason' in proof) return forbidden(proof.reason);
      // Counted only once the signature holds: nobody can use up another payer's proof by sending it malformed.
      const used = request.method === 'HEAD' ? readProofs.check(proof.owner, input.agent_id, signedAt) : readProofs.use(proof.owner, input.agent_id, signedAt, now);
      if (used) return forbidden(used);
      const view = governorStateView(await readGovernorState(deps.store, proof.owner, input.agent_id), now);
      // The proof's signer is told which address it proved, so a proof signed by the wrong key reads as such.
      const body: JsonObject = view ? { found: true, ...view } : { found: false, agent_id: input.agent_id, owner: proof.owner };
      return { body, headers: { 'Cache-Control': 'private, no-store' } };
    },
  });

const governanceStandard = freeRoute({
    id: 'governance.standard',
    method: 'GET',
    path: '/v1/governance/standard',
    family: 'governance',
    summary: "The spend governor's rules.",
    description: 'The versioned rules the spend governor applies: agents per payer, budget periods, atomic reserve, expiry, settlement.',
    output: z.looseObject({ version: z.string() }),
    async handle() {
      return { body: governorRulesDocument() };
    },
  });

export const spendGovernor: Route[] = [reserve, settle, governanceVerify, governanceState, governanceStandard];
