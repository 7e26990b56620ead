import { z } from 'zod';
import { trustedRouteRecord } from '../../../kernel/route-kit/records.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { DEFAULT_MIN_HISTORY, TRUSTED_ROUTE_RULESET, rankRoutes, type TrustedRouteInput } from './engine.ts';
import { AMOUNT_PATTERN } from '../../../kernel/decimal-amount.ts';
import { rulesetMember, signedResponse, token } from '../../../kernel/route-kit/schemas.ts';
import { pricedOperation, type Route, fromEngine } from '../../../kernel/operation.ts';
import { param, parseJsonParam, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';

const nonNegative = z.number().nonnegative();
/** Decimal strings as governance takes them; numbers still accepted when exact to the millionth. */
const usdAmount = z
  .union([
    z.string().regex(AMOUNT_PATTERN, 'must be a decimal string with at most 6 decimals, e.g. "0.02"'),
    z.number().nonnegative().max(1e9).multipleOf(0.000001, 'must have at most 6 decimals; send a decimal string such as "0.02"'),
  ])
  .describe('USD: a decimal string with at most 6 decimals ("0.02"), or a number with at most 6 decimals');

export const trustedRouteInput = z
  .object({
    routes: z
      .array(
        z
          .object({
            id: token,
            price_usd: usdAmount.optional(),
            history: z.array(z.object({ success: z.boolean(), latency_ms: nonNegative.optional(), cost_usd: usdAmount.optional() }).strict()).max(10_000),
          })
          .strict(),
      )
      .min(1)
      .max(20)
      .superRefine((routes, ctx) => {
        const seen = new Set<string>();
        routes.forEach((r, i) => {
          if (seen.has(r.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate route id ${r.id}`, input: r.id });
          seen.add(r.id);
        });
      }),
    min_history: z.number().int().min(1).max(10_000).optional().describe('Outcomes a route needs to be ranked on merit (default 5)'),
  })
  .strict();

const rankingEntry = z.object({
  rank: z.number().int(),
  id: z.string(),
  score: z.number().min(0).max(1).nullable(),
  history_count: z.number().int(),
  success_rate: z.number().nullable(),
  wilson_lower_bound: z.number(),
  median_latency_ms: z.number().nullable(),
  mean_cost_usd: z.string().nullable().describe('Mean cost_usd of the history (else price_usd), exact to the millionth, rounded half to even'),
  price_usd: z.string().nullable(),
  insufficient_history: z.boolean(),
  not_provided: z.array(z.string()),
  min_history: z.number().int(),
  ruleset: rulesetMember(TRUSTED_ROUTE_RULESET),
  evidence_source: z.literal('caller-supplied').describe('The history was supplied by the caller; the service called none of the routes'),
});

export const trustedRouteRecordSchema = z.object({ routes_count: z.number().int(), ranking: z.array(rankingEntry) });

// ---- verify-catalog.register

const trustedRouteOperation = pricedOperation({
    id: 'agent-reputation.trusted-route',
    method: 'POST',
    path: '/v1/agent-reputation/trusted-route',
    family: 'trust',
    priceUsd: '0.30',
    summary: 'Ranks routes from supplied per-route outcome histories; routes with insufficient history rank last.',
    description: `Record {routes_count, ranking}. Ruleset ${TRUSTED_ROUTE_RULESET.id}/${TRUSTED_ROUTE_RULESET.version} (inside each ranking entry: the spec fixes the record to {routes_count, ranking}): score from the Wilson lower bound of success, median latency and mean cost; a component with no data is reported as not provided and left out of the score. Routes under min_history (default ${DEFAULT_MIN_HISTORY}) rank last, flagged, with no score. Ties: score, then price, then id.`,
    inputFrom: 'json',
    input: trustedRouteInput,
    example: {
      routes: [
        { id: 'route-a', price_usd: '0.02', history: [{ success: true, latency_ms: 120 }, { success: true, latency_ms: 140 }, { success: false, latency_ms: 900 }] },
        { id: 'route-b', price_usd: '0.01', history: [{ success: true, latency_ms: 300 }] },
      ],
      min_history: 3,
    },
    output: signedResponse(trustedRouteRecordSchema, null),
    keyFamily: 'trusted-route',
    signedMember: null,
    verifyPath: '/v1/agent-reputation/trusted-route/verify',
    command: fromEngine((input: TrustedRouteInput) => rankRoutes(input)),
  });

const trustedRouteVerifyRoutes = verifyRouteOnGetAndPost({
    id: 'agent-reputation.trusted-route.verify',
    path: '/v1/agent-reputation/trusted-route/verify',
    family: 'trust',
    keyFamily: 'trusted-route',
    summary: 'Re-checks a trusted-route ranking {routes_count, ranking} (ranking = the ranking array as JSON).',
    params: { ranking: param.json("the record's ranking") },
    rebuild: (p) => {
      const ranking = parseJsonParam('ranking', p.ranking);
      return Array.isArray(ranking) ? trustedRouteRecord(ranking as JsonValue[]) : { routes_count: 0, ranking };
    },
  });

export const trustedRoute: Route[] = [trustedRouteOperation, ...trustedRouteVerifyRoutes];
