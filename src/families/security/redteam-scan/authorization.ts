import { canonicalText, type JsonObject } from '../../../signing/rfc8785.ts';
import { verifyBySigner } from '../../../kernel/offline-signatures.ts';

/** A signed rules-of-engagement document: who may be assessed, where, and when. */
export interface AuthorizationProof {
  target: string;
  scope: string[];
  not_before: number;
  not_after: number;
  issuer: string;
  signature: string;
}

/** What the issuer signs: the RFC 8785 text of the proof without its signature. */
export function proofMessage(proof: Omit<AuthorizationProof, 'signature'>): string {
  return canonicalText({ target: proof.target, scope: proof.scope, not_before: proof.not_before, not_after: proof.not_after, issuer: proof.issuer });
}

/** Whether `target` (a URL or a host) lies within one scope entry: a host, *.host, or a URL prefix. */
export function inScope(target: string, scope: readonly string[]): boolean {
  const host = hostOf(target);
  return scope.some((entry) => {
    if (/^https?:\/\//i.test(entry)) return /^https?:\/\//i.test(target) && target.toLowerCase().startsWith(entry.toLowerCase());
    const want = entry.toLowerCase();
    if (host === undefined) return false;
    return want.startsWith('*.') ? host.endsWith(want.slice(1)) && host !== want.slice(2) : host === want;
  });
}

function hostOf(target: string): string | undefined {
  try {
    return /^https?:\/\//i.test(target) ? new URL(target).hostname.toLowerCase() : new URL(`https://${target}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Every reason a proof does not authorise an assessment of `target` at `now`; empty when it does. */
export function proofProblems(proof: AuthorizationProof, target: string, now: number): string[] {
  const problems: string[] = [];
  const checked = verifyBySigner(proof.issuer, proofMessage(proof), proof.signature);
  if (!checked.ok) problems.push(`bad signature: ${checked.reason}`);
  if (now < proof.not_before) problems.push(`not yet valid: not_before ${proof.not_before} is after the time of the call (${now})`);
  if (now > proof.not_after) problems.push(`expired: not_after ${proof.not_after} is before the time of the call (${now})`);
  if (proof.not_after < proof.not_before) problems.push('not_after is before not_before');
  if (proof.target !== target) problems.push(`the proof names target ${proof.target}, not ${target}`);
  if (!inScope(target, proof.scope)) problems.push(`out of scope: ${target} is not within ${proof.scope.join(', ')}`);
  return problems;
}

export const proofSummary = (proof: AuthorizationProof): JsonObject => ({ target: proof.target, scope: proof.scope, not_before: proof.not_before, not_after: proof.not_after, issuer: proof.issuer });
