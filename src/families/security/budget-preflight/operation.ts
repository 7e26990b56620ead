import { z } from 'zod';
import { AMOUNT_PATTERN } from '../../../kernel/decimal-amount.ts';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { USDC_DEPLOYMENTS, USDC_DEPLOYMENTS_REF } from './deployments.ts';
import { preflight } from './engine.ts';

const usd = z.string().regex(AMOUNT_PATTERN, 'must be a USD amount as a decimal string, e.g. "0.25"');
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address');

const input = z
  .object({
    quote: z.union([z.string().min(1).max(20_000).describe('The PAYMENT-REQUIRED header value (base64 JSON)'), z.record(z.string(), z.json()).describe('Or the decoded payment-required JSON (x402 v2 or v1)')]),
    requested_url: z.url().max(2_000),
    policy: z
      .object({
        max_per_call_usd: usd,
        daily_cap_usd: usd.optional(),
        allowed_networks: z.array(z.string().regex(/^[a-z0-9-]+:[A-Za-z0-9]+$/, 'must be a CAIP-2 network id')).max(50).optional(),
        allowed_assets: z.array(address).max(50).optional(),
        allowed_payees: z.array(address).max(500).optional(),
        denied_payees: z.array(address).max(500).optional(),
      })
      .strict(),
    spent_today_usd: usd.optional(),
    governance_agent_id: z.string().min(1).max(200).optional(),
  })
  .strict();

const EXAMPLE_QUOTE = {
  x402Version: 2,
  resource: { url: 'https://api.example.com/v1/report', description: 'A report', mimeType: 'application/json' },
  accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '250000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', maxTimeoutSeconds: 60, extra: { name: 'USD Coin', version: '2' } }],
};

export const budgetPreflight = pricedOperation({
  id: 'budget.preflight',
  method: 'POST',
  path: '/v1/budget/preflight',
  family: 'security',
  priceUsd: '0.25',
  summary: 'Payment preflight for an agent about to pay another x402 service: ALLOW, HOLD, STOP or BUDGET-EXCEEDED per accepted payment.',
  description:
    "Decodes every `accepts` entry of the quote (x402 v2 or v1) and checks it: network and asset a known USDC deployment (a curated, versioned table with its SHA-256 in the record), the amount decoded exactly in atomic units, extra.name/version the token's EIP-712 domain, payTo against the allow and deny lists, maxTimeoutSeconds sane, the quote's resource the requested URL, and the amount within the caps. Not described by the spec; there is no free verify route: re-check offline with GET /v1/budget/public-key (docs/verifying.md).",
  inputFrom: 'json',
  input,
  example: { quote: EXAMPLE_QUOTE, requested_url: 'https://api.example.com/v1/report', policy: { max_per_call_usd: '1', daily_cap_usd: '20', allowed_networks: ['eip155:8453'] }, spent_today_usd: '3.5' },
  output: signedResponse(z.looseObject({ kind: z.literal('payment-preflight'), outcome: z.enum(['ALLOW', 'HOLD', 'STOP', 'BUDGET-EXCEEDED']), entries: z.array(z.looseObject({ decision: z.string() })), checkedAt: z.number().int() }), 'evidenceCore'),
  keyFamily: 'budget',
  signedMember: 'evidenceCore',
  command: { execute: async (i, ctx) => ({ record: preflight(i, USDC_DEPLOYMENTS, { ...USDC_DEPLOYMENTS_REF }, ctx.now) }) },
});

export const budgetPreflightRoutes: Route[] = [budgetPreflight];
