import { randomBytes } from 'node:crypto';
import { getAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { BASE_USDC } from '../../src/config.ts';
import { expect } from 'vitest';
import { SettlementError, type VerifiedPayment } from '../../src/payments/settlers/settler.ts';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../support/x402-payments.ts';

export const PRICE_ATOMIC = 250_000n;

export interface AuthorizationOptions {
  payerKey: Hex;
  payTo: Address;
  value?: bigint;
  /** Seconds from now; negative for an already-expired authorization. */
  validForSeconds?: number;
  nonce?: Hex;
  signerKey?: Hex;
}

/** A payment exactly as our own verification would hand it to a settler, signed for Base USDC. */
export async function signedPayment(options: AuthorizationOptions): Promise<VerifiedPayment> {
  const payer = privateKeyToAccount(options.payerKey);
  const signer = privateKeyToAccount(options.signerKey ?? options.payerKey);
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from: payer.address,
    to: getAddress(options.payTo),
    value: (options.value ?? PRICE_ATOMIC).toString(),
    validAfter: String(now - 600),
    validBefore: String(now + (options.validForSeconds ?? 300)),
    nonce: options.nonce ?? (`0x${randomBytes(32).toString('hex')}` as Hex),
  };
  const signature = await signer.signTypedData({
    domain: { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: getAddress(BASE_USDC) },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: {
      ...authorization,
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
    },
  });
  const requirements = {
    scheme: 'exact',
    network: 'eip155:8453' as const,
    amount: authorization.value,
    asset: BASE_USDC,
    payTo: authorization.to,
    maxTimeoutSeconds: 300,
    extra: { name: 'USD Coin', version: '2' },
  };
  return {
    x402Version: 2,
    requirements,
    authorization,
    signature,
    rawPayload: {
      x402Version: 2,
      resource: { url: 'http://127.0.0.1/v1/veritrack/attest', description: 'test', mimeType: 'application/json' },
      accepted: requirements,
      payload: { authorization, signature },
    },
  };
}

/** The SettlementError a settler's promise rejects with (failing the test if it does anything else). */
export async function settlementErrorOf(promise: Promise<unknown>): Promise<SettlementError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SettlementError);
  return error as SettlementError;
}
