import { z } from 'zod';
import { recordedJsonObject } from '../../kernel/json.ts';

/**
 * The paid-call saga's events, all in the payment's own stream `payment-<payer>-<nonce>`.
 * Their order in that stream is the saga's progress: Authorized, then Settled, then Signed.
 */
const hex = (bytes: number) => z.string().regex(new RegExp(`^0x[0-9a-f]{${bytes * 2}}$`));

export const paymentAuthorizedSchema = z.object({
  /** SHA-256 of the canonical request (method, path, input): binds the payment to one request. */
  requestHash: z.string().regex(/^[0-9a-f]{64}$/),
  operation: z.string(),
  method: z.enum(['GET', 'POST']),
  path: z.string(),
  payer: hex(20),
  payTo: hex(20),
  amount: z.string().regex(/^\d+$/),
  network: z.string(),
  asset: z.string(),
  nonce: hex(32),
  validBefore: z.string().regex(/^\d+$/),
  x402Version: z.number().int(),
  /** The x402 payment-identifier extension's id, when the client sent one. */
  paymentIdentifier: z.string().optional(),
  /** The signed EIP-3009 authorization itself, so that settlement can resume after a crash. */
  authorization: recordedJsonObject,
  signature: z.string(),
  /**
   * Unix seconds at which the nonce was claimed: the `now` of the call, kept so that a call
   * resumed after a crash runs its command with the same clock and rebuilds the same record.
   */
  authorizedAt: z.number().int(),
});

export const paymentSettledSchema = z.object({
  mode: z.enum(['local', 'facilitator', 'onchain']),
  transaction: z.string(),
  network: z.string(),
  payer: hex(20),
  amount: z.string().regex(/^\d+$/),
  /** Local settlement moves no money: never counted as revenue or in public stats. */
  demo: z.boolean(),
});

export const resultSignedSchema = z.object({
  operation: z.string(),
  keyFamily: z.string(),
  record: recordedJsonObject,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  ed25519Sig: z.string().regex(/^[0-9a-f]{128}$/),
  keyId: z.string().regex(/^[0-9a-f]{16}$/),
  signedAt: z.number().int(),
});

/**
 * The x402 payment-identifier extension: a client's idempotency key, bound to the first payment
 * payload sent with it, in the stream `payid-<payer>-<id>` (scoped by payer, so that one payer
 * can neither squat on nor probe another payer's identifiers).
 */
export const paymentIdentifierBoundSchema = z.object({
  paymentIdentifier: z.string(),
  /** The payment stream the identifier answers with. */
  paymentStream: z.string(),
  /** SHA-256 of the canonical {requestHash, authorization, signature}: what "the same payload" means. */
  payloadHash: z.string().regex(/^[0-9a-f]{64}$/),
});

export type PaymentIdentifierBound = z.infer<typeof paymentIdentifierBoundSchema>;

export type PaymentAuthorized = z.infer<typeof paymentAuthorizedSchema>;
export type PaymentSettled = z.infer<typeof paymentSettledSchema>;
export type ResultSigned = z.infer<typeof resultSignedSchema>;

export const PAYMENT_EVENT_TYPES = {
  authorized: 'PaymentAuthorized',
  settled: 'PaymentSettled',
  signed: 'ResultSigned',
  identifierBound: 'PaymentIdentifierBound',
} as const;

export function paymentStreamName(payer: string, nonce: string): string {
  return `payment-${payer.toLowerCase()}-${nonce.toLowerCase()}`;
}

export function paymentIdentifierStreamName(payer: string, paymentIdentifier: string): string {
  return `payid-${payer.toLowerCase()}-${paymentIdentifier}`;
}
