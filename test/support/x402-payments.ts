import type { TransferAuthorization } from '../../src/payments/settlers/settler.ts';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../../src/payments/x402/eip3009-digest.ts';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { randomBytes } from 'node:crypto';

export { TRANSFER_WITH_AUTHORIZATION_TYPES };

/** The signed EIP-3009 message, as the service itself types it. */
export type Authorization = TransferAuthorization;

export interface HandMadePayment {
  payload: PaymentPayload;
  header: string;
  authorization: Authorization;
  signature: Hex;
}

/** Fetches the route's 402 and returns the v2 quote from PAYMENT-REQUIRED. */
export async function fetchQuote(url: string, init: RequestInit = {}): Promise<PaymentRequired> {
  const res = await fetch(url, init);
  if (res.status !== 402) throw new Error(`expected 402 from ${url}, got ${res.status}: ${await res.text()}`);
  return decodePaymentRequiredHeader(res.headers.get('payment-required')!);
}

export interface SignOptions {
  account?: PrivateKeyAccount;
  /** Changes to the authorization before it is signed. */
  authorization?: Partial<Authorization>;
  /** Changes to the EIP-712 domain (another chain or token) before signing. */
  domain?: Partial<{ name: string; version: string; chainId: number; verifyingContract: Hex }>;
  /** Changes to `accepted` as echoed back to the server. */
  accepted?: Partial<PaymentRequirements>;
  extensions?: Record<string, unknown>;
  nowSeconds?: number;
}

/** Signs an EIP-3009 authorization for a quote the way an x402 client would, with knobs to break it. */
export async function signPayment(quote: PaymentRequired, options: SignOptions = {}): Promise<HandMadePayment> {
  const account = options.account ?? privateKeyToAccount(generatePrivateKey());
  const requirements = quote.accepts[0]!;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const authorization: Authorization = {
    from: account.address,
    to: requirements.payTo as Hex,
    value: requirements.amount,
    validAfter: String(now - 600),
    validBefore: String(now + requirements.maxTimeoutSeconds),
    nonce: `0x${randomBytes(32).toString('hex')}`,
    ...options.authorization,
  };
  const extra = requirements.extra as { name: string; version: string };
  const signature = await account.signTypedData({
    domain: { name: extra.name, version: extra.version, chainId: 8453, verifyingContract: requirements.asset as Hex, ...options.domain },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: authorization.from,
      to: authorization.to,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce,
    },
  });
  const payload: PaymentPayload = {
    x402Version: 2,
    resource: quote.resource,
    accepted: { ...requirements, ...options.accepted },
    payload: { authorization, signature },
    ...(options.extensions ? { extensions: options.extensions } : {}),
  };
  return { payload, header: encodePaymentSignatureHeader(payload), authorization, signature };
}

/** Re-encodes a payload after changing it (for tampering after the signature was made). */
export function encodePayload(payload: PaymentPayload): string {
  return encodePaymentSignatureHeader(payload);
}

/** The v1 form of a hand-made payment, for the X-PAYMENT header. */
export function asV1Header(payment: HandMadePayment): string {
  const v1 = { x402Version: 1, scheme: 'exact', network: 'base', payload: payment.payload.payload };
  return Buffer.from(JSON.stringify(v1), 'utf8').toString('base64');
}
