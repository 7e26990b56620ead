import { isWithinProofWindow, recoverEip191Address, SIGNED_PROOF_WINDOW_SECONDS } from '../../../kernel/offline-signatures.ts';
import { SingleUseProofs, type ProofUse } from '../../../kernel/single-use-proofs.ts';

/** The text a payer signs (EIP-191 personal_sign) to read its agent's governance state. */
export function ownerProofMessage(agentId: string, signedAt: number | '<signed_at>'): string {
  return `Read the governance state of agent ${agentId} at ${signedAt}`;
}

/** How to make the proof, for the answers that ask for one. */
export function ownerProofHowTo(agentId: string): string {
  return (
    `send signed_at (Unix seconds, within ${SIGNED_PROOF_WINDOW_SECONDS} s of now) and owner_signature, the EIP-191 personal_sign ` +
    `of "${ownerProofMessage(agentId, '<signed_at>')}" by the payer address whose agent to read; a proof reads once`
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

/**
 * The read proofs this process has accepted: each reads once, so a copy of one (a URL in a
 * proxy's log) reads nothing. A proof is named by what it proves (payer, agent, signed_at), not
 * by its signature, which has a second valid form. A proof signed before the process started is
 * refused: the process before it may have accepted it, and only it would know.
 */
class ReadProofs {
  private readonly used = new SingleUseProofs(SIGNED_PROOF_WINDOW_SECONDS, undefined, Math.floor(Date.now() / 1000));

  /** Undefined the first time this proof is used, which uses it up; otherwise why it reads nothing. */
  use(owner: string, agentId: string, signedAt: number, now: number): string | undefined {
    return refusalOf(this.used.use(proofKey(owner, agentId, signedAt), signedAt, now), signedAt);
  }

  /** As `use`, but leaves the proof unused: a HEAD request changes nothing, as a paid route takes no payment with HEAD. */
  check(owner: string, agentId: string, signedAt: number): string | undefined {
    return refusalOf(this.used.check(proofKey(owner, agentId, signedAt), signedAt), signedAt);
  }
}

const proofKey = (owner: string, agentId: string, signedAt: number): string => `${owner} ${agentId} ${signedAt}`;

function refusalOf(use: ProofUse, signedAt: number): string | undefined {
  switch (use) {
    case 'first':
      return undefined;
    case 'again':
      return `this proof (signed_at ${signedAt}) was used already: a proof reads once; sign a fresh one (another signed_at)`;
    case 'too-old':
      return `signed_at ${signedAt} is older than the proofs this service still remembers (it may have restarted since); sign a fresh one`;
  }
}

export const readProofs = new ReadProofs();
