import type { JsonObject } from '../../../signing/rfc8785.ts';
import { canonicalText } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';

/**
 * Uptime probe scoring, rule `uptime/1`. The probe is judged only from the checks the caller
 * supplied and the settlement anchor; nothing is fetched. Outcome, first rule that applies:
 *   DOWN          no supplied check is ok (an anchor cannot make a dead endpoint "up")
 *   UP-NO-SETTLE  no settlement anchor
 *   UP-SETTLES    an anchor and every check ok
 *   DEGRADED      an anchor, but at least one check failed
 */
export const UPTIME_RULESET = { id: 'uptime', version: '1' } as const;
export const UPTIME_OUTCOMES = ['UP-SETTLES', 'UP-NO-SETTLE', 'DEGRADED', 'DOWN'] as const;
export type UptimeOutcome = (typeof UPTIME_OUTCOMES)[number];

export interface UptimeCheck {
  at: number;
  ok: boolean;
  latency_ms?: number | undefined;
  status?: number | undefined;
}

export interface UptimeProbeInput {
  target: string;
  checks: readonly UptimeCheck[];
  /** Hash of the last confirmed on-chain settlement transaction (0x + 64 hex), when known. */
  settlement_anchor?: string | undefined;
}

const PERCENTILES = [50, 90, 95, 99] as const;
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/** Nearest-rank percentile of an ascending list: always one of the supplied values. */
export function nearestRank(sortedAscending: readonly number[], percentile: number): number {
  const rank = Math.max(1, Math.ceil((percentile / 100) * sortedAscending.length));
  return sortedAscending[rank - 1]!;
}

function canonicalCheck(c: UptimeCheck): JsonObject {
  return { at: c.at, ok: c.ok, ...(c.latency_ms === undefined ? {} : { latency_ms: c.latency_ms }), ...(c.status === undefined ? {} : { status: c.status }) };
}

/** Order-independent: the same set of checks in any order gives the same record. */
function sortedChecks(checks: readonly UptimeCheck[]): JsonObject[] {
  return checks
    .map(canonicalCheck)
    .map((c) => ({ c, text: canonicalText(c) }))
    .sort((x, y) => (x.c.at as number) - (y.c.at as number) || (x.text < y.text ? -1 : x.text > y.text ? 1 : 0))
    .map((x) => x.c);
}

export function decideUptimeOutcome(anchor: string | undefined, total: number, okCount: number): UptimeOutcome {
  if (okCount === 0) return 'DOWN';
  if (!anchor) return 'UP-NO-SETTLE';
  return okCount === total ? 'UP-SETTLES' : 'DEGRADED';
}

export function scoreUptimeProbe(input: UptimeProbeInput, now: number): JsonObject {
  if (input.checks.length === 0) throw new RangeError('checks must contain at least one check');
  const checks = sortedChecks(input.checks);
  const total = input.checks.length;
  const okCount = input.checks.filter((c) => c.ok).length;
  const latencies = input.checks.flatMap((c) => (c.latency_ms === undefined ? [] : [c.latency_ms])).sort((a, b) => a - b);
  const statuses = input.checks.flatMap((c) => (c.status === undefined ? [] : [c.status]));
  const from = checks[0]!.at as number;
  const to = checks.at(-1)!.at as number;
  const anchor = input.settlement_anchor?.toLowerCase();
  const notProvided = [
    ...(anchor ? [] : ['settlement_anchor']),
    ...(latencies.length === 0 ? ['latency_ms'] : []),
    ...(statuses.length === 0 ? ['status'] : []),
  ];
  const statusClasses: JsonObject = {};
  for (const s of [...statuses].sort((a, b) => a - b)) {
    const cls = `${Math.floor(s / 100)}xx`;
    statusClasses[cls] = ((statusClasses[cls] as number | undefined) ?? 0) + 1;
  }
  return {
    kind: 'uptime-probe',
    ruleset: { ...UPTIME_RULESET },
    target: input.target,
    outcome: decideUptimeOutcome(anchor, total, okCount),
    settlementAnchor: anchor ?? null,
    window: { from, to, seconds: to - from },
    checks: {
      total,
      ok: okCount,
      failed: total - okCount,
      withLatency: latencies.length,
      withStatus: statuses.length,
      // Checks stamped after the probe was scored cannot have been observed yet: counted, not trusted.
      afterProbe: input.checks.filter((c) => c.at > now).length,
    },
    availability: round6(okCount / total),
    latencyMs:
      latencies.length === 0
        ? null
        : { ...Object.fromEntries(PERCENTILES.map((p) => [`p${p}`, nearestRank(latencies, p)])), min: latencies[0]!, max: latencies.at(-1)! },
    statusClasses,
    notProvided,
    checksSha256: canonicalSha256(checks),
    // The checks and the anchor are the caller's: the service probed nothing itself.
    evidence_source: 'caller-supplied',
    probedAt: now,
  };
}
