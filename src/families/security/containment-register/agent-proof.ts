import { isWithinProofWindow, outsideProofWindow, SIGNED_PROOF_WINDOW_SECONDS } from '../../../kernel/offline-signatures.ts';
import { invalidInputRefusal, type Refusal } from '../../../kernel/refusal.ts';
import { canonicalText } from '../../../signing/rfc8785.ts';
import { checkDid, verifyByDid } from './dids.ts';
import type { AgentProofVerdict, ContainmentInput } from './engine.ts';

/** Names what the agent signs, so that its signature over a declaration means nothing elsewhere. */
export const AGENT_PROOF_PURPOSE = 'containment-register';

type Declaration = Omit<ContainmentInput, 'agent_proof'>;

/** One member per member of the declaration: an input member added without a place here fails the type check. */
type SignedDeclaration = Record<keyof Required<Declaration>, unknown> & { purpose: typeof AGENT_PROOF_PURPOSE; signed_at: number };

/**
 * What the agent signs: the RFC 8785 text of the whole declaration as sent, and when it was
 * signed. Every member a caller may send but the proof itself is here, so a payer relaying the
 * agent's registration can change nothing in it. An absent contact or policy is null and absent
 * rules are [], as the record shows them.
 */
export function agentProofMessage(declaration: Declaration, signedAt: number): string {
  const signed: SignedDeclaration = {
    purpose: AGENT_PROOF_PURPOSE,
    agent_did: declaration.agent_did,
    emergency_contact_did: declaration.emergency_contact_did ?? null,
    policy: declaration.policy ?? null,
    rules: declaration.rules ?? [],
    signed_at: signedAt,
  };
  return canonicalText(signed);
}

/**
 * The agent's proof, checked offline with the call's clock: did:key by Ed25519, did:pkh:eip155
 * (or an EVM address) by EIP-191. A DID the service cannot resolve offline (did:web) gives no
 * proof it can check: UNRESOLVED, never VERIFIED.
 */
export function checkAgentProof(input: ContainmentInput, now: number): AgentProofVerdict {
  const proof = input.agent_proof;
  if (!proof) return { status: 'NOT-PROVIDED' };
  const sent = { signed_at: proof.signed_at, signature: proof.signature };
  const agent = checkDid(input.agent_did);
  if (agent.syntax === 'valid' && agent.resolution === 'unresolved (offline)')
    return { status: 'UNRESOLVED', ...sent, reason: `did:${agent.method} is unresolved (offline): the service has no network to find its key; only a did:key or did:pkh agent can prove a registration` };
  // Refused before the quote (staleAgentProofRefusal); met here only at the window's edge, the quote and the claim reading the clock apart.
  if (!isWithinProofWindow(proof.signed_at, now)) return { status: 'FAILED', scheme: null, ...sent, reason: `signed_at is more than ${SIGNED_PROOF_WINDOW_SECONDS} s from the service's clock at registeredAt` };
  const checked = verifyByDid(input.agent_did, agentProofMessage(input, proof.signed_at), proof.signature);
  if (!checked.ok) return { status: 'FAILED', scheme: checked.scheme ?? null, ...sent, reason: `not signed by ${input.agent_did} over this registration: ${checked.reason}` };
  return { status: 'VERIFIED', scheme: checked.scheme ?? null, ...sent };
}

/**
 * A proof signed too long ago or too far ahead is refused before the quote: the request and the
 * clock decide it, not any stored state, and the caller can sign again for free.
 */
export function staleAgentProofRefusal(input: ContainmentInput, now: number): Refusal | undefined {
  const proof = input.agent_proof;
  const outside = proof && outsideProofWindow(proof.signed_at, now);
  if (!outside) return undefined;
  return invalidInputRefusal('agent_proof_stale', 'agent_proof.signed_at', `${outside}: sign the registration again`, 'agent_proof');
}
