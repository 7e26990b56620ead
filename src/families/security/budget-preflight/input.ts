import { z } from 'zod';
import { AMOUNT_PATTERN } from '../../../kernel/decimal-amount.ts';
import { jsonObject } from '../../../kernel/route-kit/schemas.ts';
import { MAX_QUOTE_HEADER_CHARS } from './quote.ts';

const usd = z.string().regex(AMOUNT_PATTERN, 'must be a decimal USD amount with at most 6 decimals, e.g. "0.25"');
const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');
const caip2 = z.string().regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, 'must be a CAIP-2 chain id, e.g. "eip155:8453"');

export const MAX_LIST = 64;

export const budgetPolicy = z
  .object({
    max_per_call_usd: usd.describe('The most one payment may cost, in USD'),
    daily_cap_usd: usd.optional().describe('The most the agent may spend today, in USD; needs spent_today_usd to be checked'),
    allowed_networks: z.array(caip2).max(MAX_LIST).optional().describe('When given, only these CAIP-2 networks are allowed'),
    allowed_assets: z.array(evmAddress).max(MAX_LIST).optional().describe('When given, only these token contracts are allowed'),
    allowed_payees: z.array(evmAddress).max(MAX_LIST).optional().describe('When given, only these payTo addresses are allowed'),
    denied_payees: z.array(evmAddress).max(MAX_LIST).optional().describe('payTo addresses never to pay'),
  })
  .strict();

export const budgetPreflightInput = z
  .object({
    quote: z
      .union([z.string().min(1).max(MAX_QUOTE_HEADER_CHARS).describe('The PAYMENT-REQUIRED header value: base64 of the JSON quote'), jsonObject.describe('The decoded quote (the 402 body or the decoded header)')])
      .describe('The x402 quote (v2 PaymentRequired or v1 payment requirements) of the service about to be paid'),
    requested_url: z.url().max(2048).describe('The URL the agent requested and is about to pay for'),
    policy: budgetPolicy,
    spent_today_usd: usd.optional().describe('What the agent has spent today, in USD (caller-supplied)'),
    governance_agent_id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)
      .optional()
      .describe('A spend-governor agent id; its stored state is not read by this operation (see not_performed)'),
  })
  .strict();

export type BudgetPreflightInput = z.infer<typeof budgetPreflightInput>;
export type BudgetPolicy = z.infer<typeof budgetPolicy>;
