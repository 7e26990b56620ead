import { outsideProofWindow } from '../../../kernel/offline-signatures.ts';
import { invalidInputRefusal, type Refusal } from '../../../kernel/refusal.ts';
import { bindingOf } from './control-message.ts';
import { classifyIdentifier, signedMessageOf, type ControlProofInput } from './engine.ts';

/**
 * A proof in this claim's text, signed too long ago or too far ahead, is refused before the
 * quote: the request and the clock decide it, and the caller can sign again for free instead of
 * paying for a CONTROL-FAILED record. Only where the engine would check the signature: evidence
 * of an identifier that cannot be checked offline is carried as documented, whatever its text says.
 */
export function staleControlProofRefusal(input: ControlProofInput, now: number): Refusal | undefined {
  if (!input.control_evidence || classifyIdentifier(input.identifier).kind === 'unverifiable') return undefined;
  const signed = signedMessageOf(input.control_evidence);
  if (!signed) return undefined;
  const binding = bindingOf(input, signed.message);
  const outside = binding.bound ? outsideProofWindow(binding.signedAt, now) : undefined;
  if (!outside) return undefined;
  return invalidInputRefusal('control_proof_stale', 'control_evidence.message', `signed_at ${outside}: sign the message again with the current time`);
}
