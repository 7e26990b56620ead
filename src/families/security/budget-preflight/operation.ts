import { z } from 'zod';
import { fromEngine, pricedOperation, type Route } from '../../../kernel/operation.ts';
import { hex64, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRoute } from '../../../kernel/route-kit/verify-route.ts';
import { USDC_DEPLOYMENTS } from './data.ts';
import { CHECK_RESULTS, ENTRY_VERDICTS, MAX_SANE_TIMEOUT_SECONDS, preflightPayment, PREFLIGHT_OUTCOMES } from './engine.ts';
import { budgetPreflightInput, type BudgetPreflightInput } from './input.ts';
import { MAX_ACCEPTS, MAX_QUOTE_HEADER_CHARS, MAX_QUOTE_JSON_BYTES, quoteBeyondLimits } from './quote.ts';

const entryResult = z.object({
  index: z.number().int(),
  scheme: z.string().nullable(),
  network: z.string().nullable(),
  asset: z.string().nullable(),
  pay_to: z.string().nullable(),
  amount_atomic: z.string().nullable().describe('The amount exactly as quoted, in atomic units'),
  amount_usd: z.string().nullable().describe('The amount in USD when the asset is confirmed as USDC (6 decimals)'),
  verdict: z.enum(ENTRY_VERDICTS),
  budget_exceeded: z.boolean(),
  checks: z.array(z.object({ check: z.string(), result: z.enum(CHECK_RESULTS), detail: z.string() })),
});

const preflightRecord = z.object({
  kind: z.literal('budget-preflight'),
  ruleset: z.object({ id: z.literal('budget-preflight'), version: z.string(), data: z.array(z.object({ name: z.string(), version: z.string(), sha256: hex64, data_date: z.string() })) }),
  quote_sha256: hex64,
  quote_encoding: z.enum(['base64-json', 'json']),
  requested_url: z.string(),
  policy: z.record(z.string(), z.unknown()),
  spent_today_usd: z.string(),
  governance_agent_id: z.string().optional(),
  x402_version: z.union([z.literal(1), z.literal(2)]).nullable(),
  outcome: z.enum(PREFLIGHT_OUTCOMES),
  reasons: z.array(z.string()),
  entries: z.array(entryResult),
  recommended_entry: z.number().int().nullable(),
  evidence_source: z.literal('caller-supplied'),
  not_performed: z.array(z.object({ check: z.string(), reason: z.string() })),
  checkedAt: z.number().int(),
});

const budgetPreflight = pricedOperation({
  id: 'budget.preflight',
  method: 'POST',
  path: '/v1/budget/preflight',
  family: 'security',
  priceUsd: '0.25',
  summary: 'Payment preflight: checks every entry of an x402 quote against a curated USDC table and the caller\'s spending policy before the agent pays.',
  description: `A payment preflight for an agent about to pay another x402 service (behaviour not described by the spec; ours). Decodes the quote (the PAYMENT-REQUIRED header value, base64 of JSON, or the decoded JSON; x402 v2 and v1 shapes) and checks every accepts entry (at most ${MAX_ACCEPTS}; the header at most ${MAX_QUOTE_HEADER_CHARS} characters, the JSON at most ${MAX_QUOTE_JSON_BYTES} bytes; beyond, 422 quote_too_large before any quote): the network and asset are a known native USDC deployment (curated table ${USDC_DEPLOYMENTS.name} ${USDC_DEPLOYMENTS.version}, ${USDC_DEPLOYMENTS.byNetwork.size} networks), the amount is exact atomic units, extra.name and extra.version are the token's EIP-712 domain, payTo against the allow and deny lists, maxTimeoutSeconds positive and at most ${MAX_SANE_TIMEOUT_SECONDS}, the quoted resource is the requested URL, and the amount within max_per_call_usd and (with spent_today_usd) daily_cap_usd. Each entry is ALLOW, HOLD (a check could not be made) or STOP (a check failed), with every check and its detail; the outcome is ALLOW (recommended_entry names the entry to pay with), BUDGET-EXCEEDED (an entry would pass but for a cap), HOLD or STOP. governance_agent_id is echoed; the governor's stored state is not read (not_performed says so). Re-check it free on POST /v1/budget/preflight/recheck ({body, sha256, signature}) or offline with the budget public key.`,
  inputFrom: 'json',
  input: budgetPreflightInput,
  example: {
    quote: {
      x402Version: 2,
      resource: { url: 'https://api.example.com/v1/report', description: 'Quarterly report', mimeType: 'application/json' },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:8453',
          amount: '250000',
          asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
          payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C',
          maxTimeoutSeconds: 300,
          extra: { name: 'USD Coin', version: '2' },
        },
      ],
    },
    requested_url: 'https://api.example.com/v1/report',
    policy: { max_per_call_usd: '1.00', daily_cap_usd: '20', allowed_networks: ['eip155:8453'] },
    spent_today_usd: '3.75',
  },
  output: signedResponse(preflightRecord, 'evidenceCore'),
  keyFamily: 'budget',
  signedMember: 'evidenceCore',
  verifyPath: '/v1/budget/preflight/recheck',
  precheck(input) {
    const problem = quoteBeyondLimits(input.quote);
    return problem && { status: 422, error: 'quote_too_large', message: problem.message, outcome: 'INVALID-INPUT', issues: [problem] };
  },
  command: fromEngine((input: BudgetPreflightInput, now: number) => preflightPayment(input, now, USDC_DEPLOYMENTS)),
});

const recheck = verifyRoute({ id: 'budget.preflight.recheck', method: 'POST', path: '/v1/budget/preflight/recheck', family: 'security', keyFamily: 'budget', summary: 'Re-checks a payment preflight result (body = the evidenceCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody });

export const budgetPreflightRoutes: Route[] = [budgetPreflight, recheck];
