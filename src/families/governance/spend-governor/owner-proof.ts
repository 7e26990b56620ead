import { isWithinProofWindow, recoverEip191Address, SIGNED_PROOF_WINDOW_SECONDS } from '../../../kernel/offline-signatures.ts';

/** The text the owner signs (EIP-191 personal_sign) to read its agent's governance state. */
export function ownerProofMessage(agentId: string, signedAt: number): string {
  return `Read the governance state of agent ${agentId} at ${signedAt}`;
}

/**
 * Why a proof of ownership does not hold, or undefined when it does: the signature must recover
 * to the owner address, over this agent's message, signed recently (a captured proof goes stale).
 */
export function ownerProofRefusal(agentId: string, signedAt: number, signature: string, owner: string, now: number): string | undefined {
  if (!isWithinProofWindow(signedAt, now)) return `signed_at ${signedAt} is more than ${SIGNED_PROOF_WINDOW_SECONDS} s from now (${now}); sign a fresh proof`;
  const recovered = recoverEip191Address(ownerProofMessage(agentId, signedAt), signature);
  if ('reason' in recovered) return `owner_signature: ${recovered.reason}`;
  if (recovered.address !== owner.toLowerCase()) return 'owner_signature is not by the owner of this agent';
  return undefined;
}
