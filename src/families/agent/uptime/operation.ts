import { z } from 'zod';

/** Beyond this a stamp is milliseconds (year 5138 in seconds), not Unix seconds. */
const MAX_UNIX_SECONDS = 99_999_999_999;
import { fromEngine, pricedOperation, type Route } from '../../../kernel/operation.ts';
import { hex64, rulesetMember, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRoute } from '../../../kernel/route-kit/verify-route.ts';
import { scoreUptimeProbe, UPTIME_OUTCOMES, UPTIME_RULESET } from './engine.ts';

const uptimeCheck = z
  .object({
    at: z.number().int().min(0).max(MAX_UNIX_SECONDS, 'must be Unix seconds (this looks like milliseconds)').describe('Unix seconds of the check, not after the call'),
    ok: z.boolean(),
    latency_ms: z.number().min(0).max(3_600_000).optional(),
    status: z.number().int().min(100).max(599).optional().describe('HTTP status the check saw'),
  })
  .strict();

const uptimeInput = z
  .object({
    target: z.string().min(1).max(512).describe('The probed endpoint, carried verbatim'),
    checks: z.array(uptimeCheck).min(1, 'must contain at least one check').max(10_000),
    settlement_anchor: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a transaction hash: 0x followed by 64 hex characters')
      .optional()
      .describe('Hash of the last confirmed on-chain settlement transaction'),
  })
  .strict();

const uptimeRecordSchema = z.object({
  kind: z.literal('uptime-probe'),
  ruleset: rulesetMember(UPTIME_RULESET),
  target: z.string(),
  outcome: z.enum(UPTIME_OUTCOMES),
  settlementAnchor: z.string().nullable(),
  window: z.object({ from: z.number().int(), to: z.number().int(), seconds: z.number().int() }),
  checks: z.object({ total: z.number().int(), ok: z.number().int(), failed: z.number().int(), withLatency: z.number().int(), withStatus: z.number().int(), afterProbe: z.number().int() }),
  availability: z.number().min(0).max(1),
  latencyMs: z.object({ p50: z.number(), p90: z.number(), p95: z.number(), p99: z.number(), min: z.number(), max: z.number() }).nullable(),
  statusClasses: z.record(z.string(), z.number().int()),
  notProvided: z.array(z.enum(['settlement_anchor', 'latency_ms', 'status'])),
  checksSha256: hex64,
  evidence_source: z.literal('caller-supplied').describe('The checks and the settlement anchor were supplied by the caller; the service probes nothing'),
  probedAt: z.number().int(),
});

const uptimeProbe = pricedOperation({
    id: 'mcp.verify.uptime',
    method: 'POST',
    path: '/v1/mcp/verify/uptime',
    family: 'agent',
    priceUsd: '0.25',
    summary: 'Scores one uptime probe from supplied checks plus a settlement anchor.',
    description: `Scores the supplied checks {at, ok, latency_ms?, status?} (ruleset ${UPTIME_RULESET.id}/${UPTIME_RULESET.version}; nothing is fetched): availability and nearest-rank latency percentiles over the window the checks span. Outcome: DOWN when no check is ok; UP-NO-SETTLE without a settlement anchor; UP-SETTLES with an anchor (the hash of the last confirmed on-chain settlement transaction) and every check ok; DEGRADED with an anchor and a failed check. Missing latency or status is listed under notProvided.`,
    inputFrom: 'json',
    input: uptimeInput,
    example: {
      target: 'https://mcp.example/sse',
      checks: [
        { at: 1767225000, ok: true, latency_ms: 84, status: 200 },
        { at: 1767225300, ok: true, latency_ms: 97, status: 200 },
      ],
      settlement_anchor: `0x${'5e'.repeat(32)}`,
    },
    output: signedResponse(uptimeRecordSchema, 'evidenceCore'),
    keyFamily: 'uptime',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/mcp/verify/uptime/recheck',
    // A check stamped after the call cannot have happened: refused before the quote, never scored.
    precheck(input, _settings, now) {
      const future = input.checks.flatMap((check, i) => (check.at > now ? [{ path: `checks.${i}.at`, message: `${check.at} is after the time of the call (${now}): a check must have happened before the probe is scored` }] : []));
      if (future.length === 0) return undefined;
      const more = future.length > 1 ? ` (and ${future.length - 1} more)` : '';
      return { status: 422, error: 'check_after_call', message: `${future[0]!.path}: ${future[0]!.message}${more}`, outcome: 'INVALID-INPUT', issues: future };
    },
    command: fromEngine(scoreUptimeProbe),
  });

const uptimeRecheck = verifyRoute({ id: 'mcp.verify.uptime.recheck', method: 'POST', path: '/v1/mcp/verify/uptime/recheck', family: 'agent', keyFamily: 'uptime', summary: 'Re-checks an uptime probe result (body = the evidenceCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody });

export const uptime: Route[] = [uptimeProbe, uptimeRecheck];
