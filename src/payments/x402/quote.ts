import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { z } from 'zod';
import type { Settings } from '../../config.ts';
import { usdToAtomic, type PricedOperation } from '../../kernel/operation.ts';
import type { JsonObject } from '../../signing/rfc8785.ts';
import { PAYMENT_IDENTIFIER_KEY, quoteLibraries } from './quote-libraries.ts';

export const X402_SCHEME = 'exact';
/** EIP-712 domain of USDC on Base: what the payer's wallet signs against. */
export const USDC_EIP712 = { name: 'USD Coin', version: '2' } as const;
export const MAX_TIMEOUT_SECONDS = 300;
/** CAIP-2 eip155:8453 is "base" in x402 v1. */
const V1_NETWORK_NAMES: Record<string, string> = { 'eip155:8453': 'base' };

/**
 * x402's PaymentRequirements as this service quotes them: every member JSON (`extra` is the
 * EIP-712 domain), so the discovery documents carry them as they are.
 */
export type QuotedRequirements = { [K in Exclude<keyof PaymentRequirements, 'extra'>]: PaymentRequirements[K] } & { extra: { name: string; version: string } };

/**
 * The route's payment requirements. Deterministic per route and settings, so that a retry's
 * `accepted` can be compared member by member with what we would quote now.
 */
export function paymentRequirements(op: PricedOperation, settings: Settings): QuotedRequirements {
  return {
    scheme: X402_SCHEME,
    network: settings.NETWORK,
    amount: usdToAtomic(op.priceUsd).toString(),
    asset: settings.USDC_ADDRESS,
    payTo: settings.PAY_TO,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: { ...USDC_EIP712 },
  };
}

export function resourceUrl(op: PricedOperation, baseUrl: string): string {
  return `${baseUrl}${op.path}`;
}

/** JSON Schema of a zod schema as the request side sees it (before transforms). */
export function inputJsonSchema(schema: z.ZodType): JsonObject {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonObject;
}

export function outputJsonSchema(schema: z.ZodType): JsonObject {
  return z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonObject;
}

/**
 * The bazaar discovery extension: how to call the route and what it returns. The library leaves
 * `method` for its own resource server to fill in; we are that server, so we fill it here.
 */
export async function bazaarExtension(op: PricedOperation): Promise<Record<string, unknown>> {
  const { declareDiscoveryExtension } = (await quoteLibraries()).bazaar;
  const config = {
    input: op.example as Record<string, unknown>,
    inputSchema: inputJsonSchema(op.input),
    output: { schema: outputJsonSchema(op.output) },
  };
  const declared =
    op.method === 'GET'
      ? declareDiscoveryExtension(config)
      : declareDiscoveryExtension({ bodyType: op.inputFrom === 'multipart' ? 'form-data' : 'json', ...config });
  for (const ext of Object.values(declared)) {
    const input = (ext.info as { input?: { method?: string } }).input;
    if (input) input.method = op.method;
  }
  return declared;
}

/** x402 v2 PaymentRequired: the PAYMENT-REQUIRED header's content. */
export async function paymentRequired(op: PricedOperation, settings: Settings, baseUrl: string, error?: string): Promise<PaymentRequired> {
  const { declarePaymentIdentifierExtension } = (await quoteLibraries()).paymentIdentifier;
  return {
    x402Version: 2,
    ...(error ? { error } : {}),
    resource: { url: resourceUrl(op, baseUrl), description: op.summary, mimeType: 'application/json' },
    accepts: [paymentRequirements(op, settings)],
    // Optional: a client may send an idempotency key with its payment (same key, same payload ->
    // the stored response; same key, another payload -> 409).
    extensions: Object.assign({}, await bazaarExtension(op), { [PAYMENT_IDENTIFIER_KEY]: declarePaymentIdentifierExtension(false) }),
  };
}

/** The same quote in the x402 v1 form, carried in the 402 body so that v1 clients can pay too. */
export function paymentRequiredV1Body(op: PricedOperation, settings: Settings, baseUrl: string, error?: string): JsonObject {
  const req = paymentRequirements(op, settings);
  return {
    x402Version: 1,
    error: error ?? 'payment required: send the payment in the PAYMENT-SIGNATURE header (x402 v2) or the X-PAYMENT header (x402 v1)',
    accepts: [
      {
        scheme: req.scheme,
        network: V1_NETWORK_NAMES[req.network] ?? req.network,
        maxAmountRequired: req.amount,
        resource: resourceUrl(op, baseUrl),
        description: op.summary,
        mimeType: 'application/json',
        outputSchema: { input: { type: 'http', method: op.method, discoverable: true } },
        payTo: req.payTo,
        maxTimeoutSeconds: req.maxTimeoutSeconds,
        asset: req.asset,
        extra: { ...USDC_EIP712 },
      },
    ],
  };
}
