import { z } from 'zod';

/**
 * The paid-call saga's events, all in the payment's own stream `payment-<payer>-<nonce>`.
 * Their order in that stream is the saga's progress: Authorized, then Settled, then Signed.
 */
const hex = (bytes: number) => z.string().regex(new RegExp(`^0x[0-9a-f]{${bytes * 2}}$`));
const jsonObject = z.record(z.string(), z.json());

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
  authorization: jsonObject,
  signature: z.string(),
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
  record: jsonObject,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  ed25519Sig: z.string().regex(/^[0-9a-f]{128}$/),
  keyId: z.string().regex(/^[0-9a-f]{16}$/),
  signedAt: z.number().int(),
});

export type PaymentAuthorized = z.infer<typeof paymentAuthorizedSchema>;
export type PaymentSettled = z.infer<typeof paymentSettledSchema>;
export type ResultSigned = z.infer<typeof resultSignedSchema>;

export const PAYMENT_EVENT_TYPES = {
  authorized: 'PaymentAuthorized',
  settled: 'PaymentSettled',
  signed: 'ResultSigned',
} as const;

export function paymentStreamName(payer: string, nonce: string): string {
  return `payment-${payer.toLowerCase()}-${nonce.toLowerCase()}`;
}
