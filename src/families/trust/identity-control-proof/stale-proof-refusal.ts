import { isWithinProofWindow, SIGNED_PROOF_WINDOW_SECONDS } from '../../../kernel/offline-signatures.ts';
import type { Refusal } from '../../../kernel/refusal.ts';
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
  if (!binding.bound || isWithinProofWindow(binding.signedAt, now)) return undefined;
  const reason = `signed_at ${binding.signedAt} is ${Math.abs(now - binding.signedAt)} s from the service's clock (${now}); a proof counts within ${SIGNED_PROOF_WINDOW_SECONDS} s either way: sign the message again with the current time`;
  return { status: 422, error: 'control_proof_stale', message: `control_evidence.message: ${reason}`, outcome: 'INVALID-INPUT', issues: [{ path: 'control_evidence.message', message: reason }] };
}
