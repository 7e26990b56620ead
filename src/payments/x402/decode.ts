import { z } from 'zod';
import { PAYMENT_REASONS, PaymentRejected } from './reasons.ts';
import { decodeUtf8, describeIllFormed } from '../../kernel/rfc3629.ts';
import { describeIssue, issueOf } from '../../kernel/issues.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** Decimal without leading zeros: one number, one text, so a payload and its hash have one form. */
const UINT = /^(?:0|[1-9]\d{0,77})$/;
const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})+$/;
const NONCE = /^0x[0-9a-fA-F]{64}$/;
const address = z.string().regex(ADDRESS, 'must be a 0x-prefixed 20-byte hex address');
const UINT256_MAX = (1n << 256n) - 1n;
/** A uint256 of EIP-3009 as a decimal string: 78 digits can still exceed 2^256 - 1. */
const isUint256 = (text: string): boolean => UINT.test(text) && (text.length < 78 || BigInt(text) <= UINT256_MAX);
const uint = z.string().regex(UINT, 'must be a decimal integer string without leading zeros').refine(isUint256, 'must be a uint256: at most 2^256 - 1');
const hexBytes = z.string().regex(HEX_BYTES, 'must be 0x-prefixed hex bytes');

export const transferAuthorizationSchema = z.object({
  from: address,
  to: address,
  value: uint,
  validAfter: uint,
  validBefore: uint,
  nonce: z.string().regex(NONCE, 'must be a 0x-prefixed 32-byte hex nonce'),
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

/**
 * PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1): base64 of a JSON PaymentPayload. Each way it can be
 * malformed gets its own reason, so that a client can tell a transport problem from a signing one.
 */
export function decodePaymentHeader(header: 'PAYMENT-SIGNATURE' | 'X-PAYMENT', value: string): DecodedHeader {
  const text = value.trim();
  // Buffer's decoder skips what is not base64 and takes the URL-safe alphabet too, so the text
  // counts as standard base64 only if encoding the bytes gives it back exactly (padding included):
  // two native passes, cheaper than a pattern over the ~1.3 KB header.
  const bytes = Buffer.from(text, 'base64');
  if (text.length === 0 || bytes.toString('base64') !== text) throw new PaymentRejected(PAYMENT_REASONS.payloadEncoding, `${header} is not standard base64`);
  const text8 = decodeUtf8(bytes);
  if (!text8.ok) throw new PaymentRejected(PAYMENT_REASONS.payloadJson, `${header} does not decode to UTF-8 JSON (${describeIllFormed(text8)})`);
  let decoded: unknown;
  try {
    decoded = JSON.parse(text8.text);
  } catch {
    throw new PaymentRejected(PAYMENT_REASONS.payloadJson, `${header} does not decode to JSON`);
  }
  if (decoded === null || typeof decoded !== 'object' || Array.isArray(decoded))
    throw new PaymentRejected(PAYMENT_REASONS.payload, `${header} does not hold a JSON object`);
  const raw = decoded as Record<string, unknown>;
  const version = raw['x402Version'];
  if (version !== 1 && version !== 2)
    throw new PaymentRejected(PAYMENT_REASONS.version, `x402Version ${JSON.stringify(version ?? null)} is not supported (1 or 2)`);
  if (header === 'PAYMENT-SIGNATURE' && version !== 2)
    throw new PaymentRejected(PAYMENT_REASONS.version, 'PAYMENT-SIGNATURE carries x402 v2 payloads; send v1 payloads in X-PAYMENT');
  const wellFormed = version === 2 ? wellFormedV2(raw) : undefined;
  if (wellFormed) return { payment: wellFormed, raw };
  const parsed = version === 2 ? paymentPayloadV2Schema.safeParse(raw) : paymentPayloadV1Schema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first ? describeIssue(issueOf(first)) : 'invalid';
    throw new PaymentRejected(PAYMENT_REASONS.payload, `not an exact EVM payment payload (${where})`);
  }
  return { payment: parsed.data, raw };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const matches = (v: unknown, pattern: RegExp): v is string => typeof v === 'string' && pattern.test(v);

/**
 * The common case without zod's generic walk (a measurable part of a paid call's CPU): a v2
 * payload that paymentPayloadV2Schema accepts, returned in the shape it returns (only the known
 * members, fresh objects, so nothing unknown is ever stored). Undefined for anything else, which
 * then goes through the schema: the schema stays the definition, and the source of the messages.
 */
function wellFormedV2(raw: Json): PaymentPayloadV2 | undefined {
  const { accepted, payload, extensions, resource } = raw;
  if (!isObject(accepted) || !isObject(payload) || (extensions !== undefined && !isObject(extensions))) return undefined;
  const { scheme, network, amount, asset, payTo, maxTimeoutSeconds, extra } = accepted;
  if (!isString(scheme) || !isString(network) || !isString(amount) || !isString(asset) || !isString(payTo)) return undefined;
  if (typeof maxTimeoutSeconds !== 'number' || !Number.isFinite(maxTimeoutSeconds) || (extra !== undefined && !isObject(extra))) return undefined;
  const { signature, authorization: a } = payload;
  if (!matches(signature, HEX_BYTES) || !isObject(a)) return undefined;
  const { from, to, value, validAfter, validBefore, nonce } = a;
  if (!matches(from, ADDRESS) || !matches(to, ADDRESS) || !matches(nonce, NONCE)) return undefined;
  if (!isString(value) || !isString(validAfter) || !isString(validBefore) || !isUint256(value) || !isUint256(validAfter) || !isUint256(validBefore)) return undefined;
  return {
    x402Version: 2,
    ...('resource' in raw ? { resource } : {}),
    accepted: { scheme, network, amount, asset, payTo, maxTimeoutSeconds, ...(extra !== undefined ? { extra: { ...extra } } : {}) },
    payload: { signature, authorization: { from, to, value, validAfter, validBefore, nonce } },
    ...(extensions !== undefined ? { extensions: { ...extensions } } : {}),
  };
}
