import type { JsonObject } from '../../../signing/rfc8785.ts';
import { AGENT_ID_PATTERN, GOVERNOR_RULES_VERSION, GOVERNOR_RULESET } from './decider.ts';

/** GET /v1/governance/standard: the spend governor's rules, as the engine applies them. */
export function governorRulesDocument(): JsonObject {
  return {
    version: GOVERNOR_RULES_VERSION,
    ruleset: { ...GOVERNOR_RULESET },
    title: 'Spend governor rules',
    agentId: `matches ${AGENT_ID_PATTERN.source}; an agent is the payer's own: (payer, agent_id), stream governance-payer-<payer>-agent-<agent_id>`,
    amounts: 'decimal strings with at most 6 decimals ("2.5"), summed exactly in millionths; records carry the shortest decimal form',
    ownership: "every agent belongs to one payer (EIP-3009 from, lowercase): reserve and settle act on the payer's own agent of the agent_id only; another payer's reserve of the same agent_id opens that payer's own budget, and its settlement of a lease of another payer's agent is answered as an unknown lease. Records name the owner. An agent opened under spend-governor/v1 in the stream governance-agent-<agent_id> stays the agent of the payer that opened its budget, read and extended in place; for any other payer it does not exist",
    budget: "a payer's first reserve of an agent must carry budget {cap, period}; later reserves omit it or repeat it unchanged (409 budget_mismatch otherwise)",
    period: 'rolling windows of period seconds counted from the budget opening: [openedAt + k*period, openedAt + (k+1)*period); a lease counts against the window it was reserved in, while open and once settled; each new window starts from zero',
    reserve: 'fits when amount <= cap - reserved - spent of the current window; atomic through optimistic concurrency on the agent stream, so concurrent reserves can never together exceed the cap',
    budgetExceeded: 'a reserve that does not fit when the payment is checked is answered 422 BUDGET-EXCEEDED free of charge; one that loses a race after settlement is answered 200 with a signed record whose outcome is BUDGET-EXCEEDED',
    expiry: 'a lease is open until expiresAt = reservedAt + ttl_seconds; from expiresAt on, unsettled, it is released: it no longer counts as reserved and can no longer be settled (409 lease_expired)',
    settle: 'actual_amount <= the reserved amount (422 otherwise); the difference is released; settling a settled lease again with the same actual_amount returns the original receipt, byte for byte, and counts once; another amount is 409 lease_already_settled',
    leaseId: "<agent_id>:<24 hex>, derived from the payment that reserved it; settle finds the agent from the payer and the lease id's agent_id",
    outcomes: { RESERVED: 'the lease is granted', 'BUDGET-EXCEEDED': 'the amount does not fit', SETTLED: 'the lease is settled', 'NOT-FOUND': "a lease the payer's agent does not hold (422, after the payment is verified and before it is settled: nothing is charged)" },
    state: 'GET /v1/governance/state/{agent_id} reads the agent of the payer that proves itself (signed_at and owner_signature, EIP-191); without a proof it answers 403 owner_proof_required',
    signedMember: 'evidenceCore, signed with the governance key; re-check with POST /v1/governance/verify',
  };
}
