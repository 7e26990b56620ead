/**
 * The bureau's vocabulary for conformance checks, shared by the endpoint audit and the
 * receipt check: a verdict per check id, the check list in the standard's order, the score over
 * the checks that could be assessed, and the outcome label.
 */

export type CheckStatus = 'pass' | 'fail' | 'not-provided';

export interface CheckResult {
  id: string;
  status: CheckStatus;
  evidence?: string;
}

export type Verdict = { status: CheckStatus; evidence?: string };
export const pass = (): Verdict => ({ status: 'pass' });
export const fail = (evidence: string): Verdict => ({ status: 'fail', evidence });
export const absent = (evidence: string): Verdict => ({ status: 'not-provided', evidence });

/** Every check of a standard, in its order; a check no rule reached is reported not-provided. */
export function checkResults(standard: ReadonlyArray<{ id: string }>, verdicts: Readonly<Record<string, Verdict>>): CheckResult[] {
  return standard.map((c) => {
    const v = verdicts[c.id] ?? absent('not evaluated');
    return v.evidence === undefined ? { id: c.id, status: v.status } : { id: c.id, status: v.status, evidence: v.evidence };
  });
}

export interface Score {
  passed: number;
  failed: number;
  notProvided: number;
  assessed: number;
  ratio: number | null;
}

export function scoreOf(checks: readonly CheckResult[]): Score {
  const passed = checks.filter((c) => c.status === 'pass').length;
  const failed = checks.filter((c) => c.status === 'fail').length;
  const assessed = passed + failed;
  return { passed, failed, notProvided: checks.length - assessed, assessed, ratio: assessed === 0 ? null : Math.round((passed / assessed) * 10_000) / 10_000 };
}

export function outcomeOf(score: Score): 'CONFORMANT' | 'NON-CONFORMANT' | 'INSUFFICIENT-DATA' {
  return score.assessed === 0 ? 'INSUFFICIENT-DATA' : score.failed > 0 ? 'NON-CONFORMANT' : 'CONFORMANT';
}
