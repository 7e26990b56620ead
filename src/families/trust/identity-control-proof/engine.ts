import type { JsonObject } from '../../../signing/rfc8785.ts';
import { identityRecord } from '../../../kernel/route-kit/records.ts';
import {
  ed25519KeyOf,
  ed25519KeyOfDidKey,
  EVM_ADDRESS,
  isWithinProofWindow,
  SIGNED_PROOF_WINDOW_SECONDS,
  verifyEd25519,
  verifyEip191,
  type SignatureCheck,
} from '../../../kernel/offline-signatures.ts';
import { bindingOf } from './control-message.ts';

export const CONTROL_PROOF_REQUIRED_FIELDS = ['identifier', 'control_method'] as const;

export type ControlVerdict = 'CONTROL-VERIFIED' | 'CONTROL-DOCUMENTED' | 'CONTROL-FAILED' | 'NOT-PROVIDED';

export interface ControlProofInput {
  identifier: string;
  control_method: string;
  control_evidence?: JsonObject;
  claimer?: string;
}

/** How an identifier can be checked offline, if at all. */
export type IdentifierKind =
  | { kind: 'evm'; address: string }
  | { kind: 'ed25519'; key: Uint8Array }
  | { kind: 'unverifiable'; reason: string };

const DID_PKH_EIP155 = /^did:pkh:eip155:\d+:(0x[0-9a-fA-F]{40})$/;

export function classifyIdentifier(identifier: string): IdentifierKind {
  if (EVM_ADDRESS.test(identifier)) return { kind: 'evm', address: identifier.toLowerCase() };
  const pkh = DID_PKH_EIP155.exec(identifier);
  if (pkh) return { kind: 'evm', address: pkh[1]!.toLowerCase() };
  if (identifier.startsWith('did:key:')) {
    const parsed = ed25519KeyOfDidKey(identifier);
    return 'key' in parsed ? { kind: 'ed25519', key: parsed.key } : { kind: 'unverifiable', reason: parsed.reason };
  }
  const key = ed25519KeyOf(identifier);
  if (key) return { kind: 'ed25519', key };
  // did:web, DNS names, URLs and the like need a resolver or the network: documented only.
  return { kind: 'unverifiable', reason: 'identifier cannot be checked offline' };
}

/** The {message, signature} pair a checkable identifier needs, when the evidence carries one. */
export function signedMessageOf(evidence: JsonObject): { message: string; signature: string } | undefined {
  const { message, signature } = evidence;
  return typeof message === 'string' && typeof signature === 'string' ? { message, signature } : undefined;
}

export interface ControlAssessment {
  verdict: ControlVerdict;
  /** Why: kept for the command's log and the tests; not part of the spec's record. */
  reason: string;
}

/**
 * The verdict is earned: CONTROL-VERIFIED only when a signature verifies for the identifier
 * itself (EIP-191 recovery for an EVM address or did:pkh, Ed25519 for a did:key or a raw key)
 * over this claim's own text (controlProofMessage), signed within SIGNED_PROOF_WINDOW_SECONDS of
 * `now`. Evidence that needs a resolver (did:web, DNS, URL) is carried verbatim as
 * CONTROL-DOCUMENTED, which means not verified.
 */
export function assessControl(input: ControlProofInput, now: number): ControlAssessment {
  const evidence = input.control_evidence;
  if (!evidence || Object.keys(evidence).length === 0) return { verdict: 'NOT-PROVIDED', reason: 'no control_evidence supplied' };
  const identifier = classifyIdentifier(input.identifier);
  if (identifier.kind === 'unverifiable') return { verdict: 'CONTROL-DOCUMENTED', reason: identifier.reason };
  const signed = signedMessageOf(evidence);
  if (!signed) return { verdict: 'CONTROL-DOCUMENTED', reason: 'evidence carries no {message, signature} pair to check offline' };
  const check: SignatureCheck =
    identifier.kind === 'evm'
      ? verifyEip191(identifier.address, signed.message, signed.signature)
      : verifyEd25519(identifier.key, Buffer.from(signed.message, 'utf8'), signed.signature);
  if (!check.ok) return { verdict: 'CONTROL-FAILED', reason: check.reason };
  // A genuine signature over some other text (a login message, a post, a proof for another
  // claimer) was checked and proves nothing about this claim: failed, not merely documented.
  const binding = bindingOf(input, signed.message);
  if (!binding.bound) return { verdict: 'CONTROL-FAILED', reason: `the signature verifies, but ${binding.reason}` };
  // Refused before the quote (staleControlProofRefusal); met here only at the window's edge, the quote and the claim reading the clock apart.
  if (!isWithinProofWindow(binding.signedAt, now)) {
    return { verdict: 'CONTROL-FAILED', reason: `the signature verifies, but its signed_at ${binding.signedAt} is more than ${SIGNED_PROOF_WINDOW_SECONDS} s from the service's clock (${now})` };
  }
  return { verdict: 'CONTROL-VERIFIED', reason: `${identifier.kind === 'evm' ? 'EIP-191' : 'Ed25519'} signature over this claim's text verifies for the identifier` };
}

export function proveControl(input: ControlProofInput, now: number): { record: JsonObject; assessment: ControlAssessment } {
  const assessment = assessControl(input, now);
  const record = identityRecord({
    identifier: input.identifier,
    control_method: input.control_method,
    control_evidence: input.control_evidence,
    claimer: input.claimer,
    verdict: assessment.verdict,
    claimsAt: now,
  });
  return { record, assessment };
}
