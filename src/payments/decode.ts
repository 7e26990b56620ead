import { decodePaymentSignatureHeader } from '@x402/core/http';
import { z } from 'zod';
import { PAYMENT_REASONS, PaymentRejected } from './reasons.ts';

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');
const uint = z.string().regex(/^\d{1,78}$/, 'must be a decimal integer string');
const hexBytes = z.string().regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'must be 0x-prefixed hex bytes');

export const transferAuthorizationSchema = z.object({
  from: address,
  to: address,
  value: uint,
  validAfter: uint,
  validBefore: uint,
  nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex nonce'),
});

const exactEvmPayloadSchema = z.object({
  signature: hexBytes,
  authorization: transferAuthorizationSchema,
});

const requirementsSchema = z.object({
  scheme: z.string(),
  network: z.string(),
  amount: z.string(),
  asset: z.string(),
  payTo: z.string(),
  maxTimeoutSeconds: z.number(),
  extra: z.record(z.string(), z.unknown()).optional(),
});

const paymentPayloadV2Schema = z.object({
  x402Version: z.literal(2),
  resource: z.unknown().optional(),
  accepted: requirementsSchema,
  payload: exactEvmPayloadSchema,
  extensions: z.record(z.string(), z.unknown()).optional(),
});

const paymentPayloadV1Schema = z.object({
  x402Version: z.literal(1),
  scheme: z.string(),
  network: z.string(),
  payload: exactEvmPayloadSchema,
});

export type PaymentPayloadV2 = z.infer<typeof paymentPayloadV2Schema>;
export type PaymentPayloadV1 = z.infer<typeof paymentPayloadV1Schema>;
export type DecodedPayment = PaymentPayloadV2 | PaymentPayloadV1;
export type AcceptedRequirements = z.infer<typeof requirementsSchema>;

export interface DecodedHeader {
  payment: DecodedPayment;
  /** The JSON exactly as sent: facilitators want it verbatim. */
  raw: Record<string, unknown>;
}

const STANDARD_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1): base64 of a JSON PaymentPayload. Each way it can be
 * malformed gets its own reason, so that a client can tell a transport problem from a signing one.
 */
export function decodePaymentHeader(header: 'PAYMENT-SIGNATURE' | 'X-PAYMENT', value: string): DecodedHeader {
  const text = value.trim();
  if (text.length === 0 || text.length % 4 !== 0 || !STANDARD_BASE64.test(text))
    throw new PaymentRejected(PAYMENT_REASONS.payloadEncoding, `${header} is not standard base64`);
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(text);
  } catch (err) {
    if (err instanceof SyntaxError) throw new PaymentRejected(PAYMENT_REASONS.payloadJson, `${header} does not decode to JSON`);
    throw new PaymentRejected(PAYMENT_REASONS.payloadEncoding, `${header} is not standard base64`);
  }
  if (decoded === null || typeof decoded !== 'object' || Array.isArray(decoded))
    throw new PaymentRejected(PAYMENT_REASONS.payload, `${header} does not hold a JSON object`);
  const raw = decoded as Record<string, unknown>;
  const version = raw['x402Version'];
  if (version !== 1 && version !== 2)
    throw new PaymentRejected(PAYMENT_REASONS.version, `x402Version ${JSON.stringify(version ?? null)} is not supported (1 or 2)`);
  if (header === 'PAYMENT-SIGNATURE' && version !== 2)
    throw new PaymentRejected(PAYMENT_REASONS.version, 'PAYMENT-SIGNATURE carries x402 v2 payloads; send v1 payloads in X-PAYMENT');
  const parsed = version === 2 ? paymentPayloadV2Schema.safeParse(raw) : paymentPayloadV1Schema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first ? `${first.path.map(String).join('.') || '(root)'}: ${first.message}` : 'invalid';
    throw new PaymentRejected(PAYMENT_REASONS.payload, `not an exact EVM payment payload (${where})`);
  }
  return { payment: parsed.data, raw };
}
