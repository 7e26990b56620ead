import type { JsonObject } from '../../../signing/rfc8785.ts';
import { veritrackRecord } from '../../../kernel/route-kit/records.ts';

export interface AttestClaimInput {
  kind: string;
  claim: JsonObject;
}

/** Veritrack: the claim is carried verbatim; the command stamps attestedAt. */
export function attestClaim(input: AttestClaimInput, now: number): JsonObject {
  return veritrackRecord({ kind: input.kind, attestedAt: now, claim: input.claim });
}
