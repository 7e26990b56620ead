import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import { proofProblems, proofSummary, type AuthorizationProof } from './authorization.ts';
import { reviewHeaders, reviewOpenApi, reviewSecurityTxt, type Finding } from './static-review.ts';

/**
 * Version 2 (2026-11-27): the parameters a path declares for all its operations are one finding
 * each, under the path; version 1 listed them again with every operation of the path.
 */
export const REDTEAM_RULESET = { id: 'redteam-static-review', version: '2', standards: ['OWASP API Security Top 10 (2023)', 'OWASP Secure Headers Project', 'RFC 9116'], signed_message: 'RFC 8785 text of the proof without its signature' } as const;

export interface ScanInput {
  target: string;
  authorization?: AuthorizationProof[] | undefined;
  artefacts?: { openapi?: JsonObject | undefined; response_headers?: Record<string, string> | undefined; security_txt?: string | undefined } | undefined;
}

const CONTROL_NOT_VERIFIED = 'the service did not verify that the issuer controls the target: it checked the signature, the window and the scope of the proof only';

/**
 * The gate first: no assessment without at least one proof that verifies, is in its window and
 * covers the target. A refusal is itself a signed record with every reason. Then a static review
 * of the caller's artefacts only: nothing is probed, nothing is fetched.
 */
export function authorizedScan(input: ScanInput, now: number): JsonObject {
  const proofs = input.authorization ?? [];
  const checked = proofs.map((proof, index) => ({ index, proof: proofSummary(proof), problems: proofProblems(proof, input.target, now) }));
  const accepted = checked.find((c) => c.problems.length === 0);
  const base = {
    kind: 'redteam-scan',
    ruleset: { ...REDTEAM_RULESET, standards: [...REDTEAM_RULESET.standards] },
    target: input.target,
    authorization: checked.map((c) => ({ index: c.index, proof: c.proof, accepted: c.problems.length === 0, problems: c.problems })) as JsonValue,
    evidence_source: 'caller-supplied',
    control_of_target: CONTROL_NOT_VERIFIED,
    artefacts_sha256: canonicalSha256((input.artefacts ?? {}) as JsonValue),
  };
  if (!accepted) {
    const reasons = proofs.length === 0 ? ['missing: no authorization proof was supplied'] : checked.flatMap((c) => c.problems.map((p) => `proof ${c.index}: ${p}`));
    return { ...base, outcome: 'REFUSED', refusal_reasons: reasons, findings: [], scannedAt: now };
  }
  const artefacts = input.artefacts ?? {};
  const findings: Finding[] = [
    ...(artefacts.openapi ? reviewOpenApi(artefacts.openapi) : []),
    ...(artefacts.response_headers ? reviewHeaders(artefacts.response_headers) : []),
    ...(artefacts.security_txt !== undefined ? reviewSecurityTxt(artefacts.security_txt, now) : []),
  ];
  const reviewed = [artefacts.openapi ? 'openapi' : null, artefacts.response_headers ? 'response_headers' : null, artefacts.security_txt !== undefined ? 'security_txt' : null].filter((x): x is string => x !== null);
  const count = (s: Finding['severity']) => findings.filter((f) => f.severity === s).length;
  return {
    ...base,
    outcome: reviewed.length === 0 ? 'INSUFFICIENT-DATA' : findings.some((f) => f.severity === 'high') ? 'FINDINGS-HIGH' : findings.length > 0 ? 'FINDINGS' : 'NO-FINDINGS',
    accepted_proof: accepted.index,
    reviewed,
    not_reviewed: ['openapi', 'response_headers', 'security_txt'].filter((a) => !reviewed.includes(a)),
    findings,
    summary: { high: count('high'), medium: count('medium'), low: count('low'), info: count('info') },
    not_performed: [{ check: 'live probing of the target', reason: 'static review of caller-supplied artefacts only: no request is sent to the target' }],
    scannedAt: now,
  };
}
