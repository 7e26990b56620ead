import type { JsonObject } from '../../../signing/rfc8785.ts';
import { trustedRouteRecord } from '../../../kernel/route-kit/records.ts';
import { median, round, wilsonLowerBound } from '../shared/stats.ts';
import { formatAmount, parseAmount } from '../../../kernel/decimal-amount.ts';

export const TRUSTED_ROUTE_RULESET = { id: 'trusted-route', version: '1' } as const;
export const DEFAULT_MIN_HISTORY = 5;
/** Latency at which the latency component is one half; cost likewise (USD per call). */
const LATENCY_HALF_SCORE_MS = 500;
const COST_HALF_SCORE_USD = 0.1;
const WEIGHTS = { success: 0.6, latency: 0.25, cost: 0.15 } as const;

/** USD as a decimal string ("0.02") or a number with at most 6 decimals (the schema checks which). */
export type UsdAmount = string | number;

export interface RouteOutcome {
  success: boolean;
  latency_ms?: number;
  cost_usd?: UsdAmount;
}

export interface CandidateRoute {
  id: string;
  price_usd?: UsdAmount;
  history: RouteOutcome[];
}

export interface TrustedRouteInput {
  routes: CandidateRoute[];
  min_history?: number;
}

interface Scored {
  entry: JsonObject;
  id: string;
  score: number | null;
  price: bigint | undefined;
  insufficient: boolean;
}

/** Exact millionths of a USD amount; a number arrives as a multiple of 0.000001 (schema), so rounding only removes binary noise. */
function microsOf(amount: UsdAmount): bigint {
  return typeof amount === 'string' ? parseAmount(amount)! : BigInt(Math.round(amount * 1e6));
}

/** The mean in millionths, rounded half to even: amounts in the record are exact decimal strings. */
function meanMicros(values: readonly bigint[]): bigint {
  const n = BigInt(values.length);
  const sum = values.reduce((a, b) => a + b, 0n);
  const quotient = sum / n;
  const twiceRemainder = 2n * (sum % n);
  return twiceRemainder > n || (twiceRemainder === n && quotient % 2n === 1n) ? quotient + 1n : quotient;
}

/**
 * One route's score. A component whose input was not supplied (no latency or no cost anywhere)
 * is reported as not provided and its weight is spread over the others, never guessed.
 */
function scoreRoute(route: CandidateRoute, minHistory: number): Scored {
  const n = route.history.length;
  const successes = route.history.filter((h) => h.success).length;
  const latencies = route.history.flatMap((h) => (h.latency_ms === undefined ? [] : [h.latency_ms]));
  const costs = route.history.flatMap((h) => (h.cost_usd === undefined ? [] : [microsOf(h.cost_usd)]));
  const price = route.price_usd === undefined ? undefined : microsOf(route.price_usd);
  const medianLatency = median(latencies);
  const meanCostMicros = costs.length > 0 ? meanMicros(costs) : price;
  const meanCost = meanCostMicros === undefined ? undefined : Number(meanCostMicros) / 1e6;
  const wilson = wilsonLowerBound(successes, n);
  const components: Array<[number, number]> = [[WEIGHTS.success, wilson]];
  if (medianLatency !== undefined) components.push([WEIGHTS.latency, LATENCY_HALF_SCORE_MS / (LATENCY_HALF_SCORE_MS + medianLatency)]);
  if (meanCost !== undefined) components.push([WEIGHTS.cost, COST_HALF_SCORE_USD / (COST_HALF_SCORE_USD + meanCost)]);
  const weightSum = components.reduce((a, [w]) => a + w, 0);
  const raw = components.reduce((a, [w, v]) => a + w * v, 0) / weightSum;
  const insufficient = n < minHistory;
  const score = insufficient ? null : round(Math.min(1, Math.max(0, raw)));
  const notProvided = [...(medianLatency === undefined ? ['latency_ms'] : []), ...(meanCost === undefined ? ['cost_usd'] : [])];
  const entry: JsonObject = {
    id: route.id,
    score,
    history_count: n,
    success_rate: n > 0 ? round(successes / n) : null,
    wilson_lower_bound: round(wilson),
    median_latency_ms: medianLatency === undefined ? null : round(medianLatency, 3),
    mean_cost_usd: meanCostMicros === undefined ? null : formatAmount(meanCostMicros),
    price_usd: price === undefined ? null : formatAmount(price),
    insufficient_history: insufficient,
    not_provided: notProvided,
    min_history: minHistory,
    ruleset: { ...TRUSTED_ROUTE_RULESET },
    // The spec fixes the record to {routes_count, ranking}, so each entry says what it rests on:
    // the caller's history of the route, not outcomes the service observed.
    evidence_source: 'caller-supplied',
  };
  return { entry, id: route.id, score, price, insufficient };
}

/** Sufficient history first; then score (high first), price (low first, unknown last), id. */
function compareRoutes(a: Scored, b: Scored): number {
  if (a.insufficient !== b.insufficient) return a.insufficient ? 1 : -1;
  if (a.score !== b.score) return (b.score ?? -1) - (a.score ?? -1);
  if (a.price !== b.price) return a.price === undefined ? 1 : b.price === undefined ? -1 : a.price < b.price ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function rankRoutes(input: TrustedRouteInput): JsonObject {
  const minHistory = input.min_history ?? DEFAULT_MIN_HISTORY;
  const ranking = input.routes
    .map((r) => scoreRoute(r, minHistory))
    .sort(compareRoutes)
    .map((s, i) => ({ rank: i + 1, ...s.entry }));
  return trustedRouteRecord(ranking);
}
