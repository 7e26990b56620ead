import type { JsonObject } from '../../../signing/rfc8785.ts';
import { AGENT_ID_PATTERN, GOVERNOR_RULES_VERSION, GOVERNOR_RULESET } from './decider.ts';

/** GET /v1/governance/standard: the spend governor's rules, as the engine applies them. */
export function governorRulesDocument(): JsonObject {
  return {
    version: GOVERNOR_RULES_VERSION,
    ruleset: { ...GOVERNOR_RULESET },
    title: 'Spend governor rules',
    agentId: `matches ${AGENT_ID_PATTERN.source}; names the stream governance-agent-<agent_id>`,
    amounts: 'decimal strings with at most 6 decimals ("2.5"), summed exactly in millionths; records carry the shortest decimal form',
    ownership: 'the payer (EIP-3009 from) of the first reserve owns the agent; reserve and settle by any other payer are refused 403 after the payment is verified and before it is settled: nothing is charged and nothing changes',
    budget: 'the first reserve of an agent must carry budget {cap, period}; later reserves omit it or repeat it unchanged (409 budget_mismatch otherwise)',
    period: 'rolling windows of period seconds counted from the budget opening: [openedAt + k*period, openedAt + (k+1)*period); a lease counts against the window it was reserved in, while open and once settled; each new window starts from zero',
    reserve: 'fits when amount <= cap - reserved - spent of the current window; atomic through optimistic concurrency on the agent stream, so concurrent reserves can never together exceed the cap',
    budgetExceeded: 'a reserve that does not fit when the payment is checked is answered 409 BUDGET-EXCEEDED free of charge; one that loses a race after settlement is answered 200 with a signed record whose outcome is BUDGET-EXCEEDED',
    expiry: 'a lease is open until expiresAt = reservedAt + ttl_seconds; from expiresAt on, unsettled, it is released: it no longer counts as reserved and can no longer be settled (409 lease_expired)',
    settle: 'actual_amount <= the reserved amount (422 otherwise); the difference is released; settling a settled lease again with the same actual_amount returns the original receipt, byte for byte, and counts once; another amount is 409 lease_already_settled',
    leaseId: '<agent_id>:<24 hex>, derived from the payment that reserved it',
    outcomes: { RESERVED: 'the lease is granted', 'BUDGET-EXCEEDED': 'the amount does not fit', SETTLED: 'the lease is settled', 'NOT-FOUND': 'unknown lease (422)' },
    signedMember: 'evidenceCore, signed with the governance key; re-check with POST /v1/governance/verify',
  };
}
