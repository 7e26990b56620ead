import { z } from 'zod';
import { trustedRouteRecord } from '../../../kernel/route-kit/records.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { DEFAULT_MIN_HISTORY, TRUSTED_ROUTE_RULE_VERSION, rankRoutes, type TrustedRouteInput } from './engine.ts';
import { signedResponse, token } from '../../../kernel/route-kit/schemas.ts';
import { pricedOperation, type Route, fromEngine } from '../../../kernel/operation.ts';
import { param, parseJsonParam, verifyRoute } from '../../../kernel/route-kit/verify-route.ts';

const nonNegative = z.number().nonnegative();

export const trustedRouteInput = z
  .object({
    routes: z
      .array(
        z
          .object({
            id: token,
            price_usd: nonNegative.optional(),
            history: z.array(z.object({ success: z.boolean(), latency_ms: nonNegative.optional(), cost_usd: nonNegative.optional() }).strict()).max(10_000),
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
  mean_cost_usd: z.number().nullable(),
  price_usd: z.number().nullable(),
  insufficient_history: z.boolean(),
  not_provided: z.array(z.string()),
  min_history: z.number().int(),
  rule: z.string(),
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
    description: `Record {routes_count, ranking}. Rule ${TRUSTED_ROUTE_RULE_VERSION}: score from the Wilson lower bound of success, median latency and mean cost; a component with no data is reported as not provided and left out of the score. Routes under min_history (default ${DEFAULT_MIN_HISTORY}) rank last, flagged, with no score. Ties: score, then price, then id.`,
    inputFrom: 'json',
    input: trustedRouteInput,
    example: {
      routes: [
        { id: 'route-a', price_usd: 0.02, history: [{ success: true, latency_ms: 120 }, { success: true, latency_ms: 140 }, { success: false, latency_ms: 900 }] },
        { id: 'route-b', price_usd: 0.01, history: [{ success: true, latency_ms: 300 }] },
      ],
      min_history: 3,
    },
    output: signedResponse(trustedRouteRecordSchema, null),
    keyFamily: 'trusted-route',
    signedMember: null,
    verifyPath: '/v1/agent-reputation/trusted-route/verify',
    command: fromEngine((input: TrustedRouteInput) => rankRoutes(input)),
  });

const trustedRouteVerify = verifyRoute({
    id: 'agent-reputation.trusted-route.verify',
    method: 'GET',
    path: '/v1/agent-reputation/trusted-route/verify',
    family: 'trust',
    keyFamily: 'trusted-route',
    summary: 'Re-checks a trusted-route ranking {routes_count, ranking} (ranking = the ranking array as JSON).',
    params: { ranking: param.json() },
    rebuild: (p) => {
      const ranking = parseJsonParam('ranking', p.ranking);
      return Array.isArray(ranking) ? trustedRouteRecord(ranking as JsonValue[]) : { routes_count: 0, ranking };
    },
  });

export const trustedRoute: Route[] = [trustedRouteOperation, trustedRouteVerify];
