import { isWithinProofWindow, recoverEip191Address, SIGNED_PROOF_WINDOW_SECONDS } from '../../../kernel/offline-signatures.ts';

/** The text a payer signs (EIP-191 personal_sign) to read its agent's governance state. */
export function ownerProofMessage(agentId: string, signedAt: number | '<signed_at>'): string {
  return `Read the governance state of agent ${agentId} at ${signedAt}`;
}

/** How to make the proof, for the answers that ask for one. */
export function ownerProofHowTo(agentId: string): string {
  return (
    `send signed_at (Unix seconds, within ${SIGNED_PROOF_WINDOW_SECONDS} s of now) and owner_signature, the EIP-191 personal_sign ` +
    `of "${ownerProofMessage(agentId, '<signed_at>')}" by the payer address whose agent to read`
  );
}

/**
 * The payer a proof speaks for: the address its signature recovers to, over this agent's
 * message, signed recently (a captured proof goes stale). Any address can sign; the proof only
 * selects whose agent is read, so it reveals nothing of another payer's. Or why it is no proof.
 */
export function ownerOfProof(agentId: string, signedAt: number, signature: string, now: number): { owner: string } | { reason: string } {
  if (!isWithinProofWindow(signedAt, now)) return { reason: `signed_at ${signedAt} is more than ${SIGNED_PROOF_WINDOW_SECONDS} s from now (${now}); sign a fresh proof` };
  const recovered = recoverEip191Address(ownerProofMessage(agentId, signedAt), signature);
  if ('reason' in recovered) return { reason: `owner_signature: ${recovered.reason}` };
  return { owner: recovered.address };
}
