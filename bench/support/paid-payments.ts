import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import type { Hex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { chainIdOf, transferAuthorizationDigest, type TokenDomain } from '../../src/payments/x402/eip3009-digest.ts';

/** The EIP-712 domain of the quoted token, as the payer signs it. */
export function tokenDomainOf(requirements: PaymentRequirements): TokenDomain {
  const extra = requirements.extra as { name: string; version: string };
  return { name: extra.name, version: extra.version, chainId: chainIdOf(requirements.network), verifyingContract: requirements.asset };
}

/**
 * Pre-signs `count` PAYMENT-SIGNATURE headers, each a fresh EIP-3009 authorization (its own
 * nonce) from one payer, with the native signer: viem would take minutes for this many, and
 * signing must not compete with the server for the CPU while it is measured.
 */
export function presignPayments(requirements: PaymentRequirements, resource: string, count: number): string[] {
  const native = createRequire(import.meta.url)('secp256k1/bindings.js') as {
    ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  };
  const privateKey = randomBytes(32);
  const from = privateKeyToAddress(`0x${privateKey.toString('hex')}`);
  const domain = tokenDomainOf(requirements);
  // An hour is far longer than any run, and far beyond the service's 6-second margin.
  const validBefore = String(Math.floor(Date.now() / 1000) + 3600);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const authorization = { from, to: requirements.payTo as Hex, value: requirements.amount, validAfter: '0', validBefore, nonce: `0x${randomBytes(32).toString('hex')}` as Hex };
    const { signature, recid } = native.ecdsaSign(transferAuthorizationDigest(domain, authorization), privateKey);
    const payload: PaymentPayload = {
      x402Version: 2,
      resource: { url: resource, description: '', mimeType: 'application/json' },
      accepted: requirements,
      payload: { authorization, signature: `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}` },
    };
    out.push(encodePaymentSignatureHeader(payload));
  }
  return out;
}

/** The paid call the HTTP benchmarks make: a veritrack attestation of a small claim. */
export const ATTEST_PATH = '/v1/veritrack/attest';
/**
 * The body of paid call number `call`: a claim of its own, so that every result is distinct, as
 * callers' results are. (Until 2026-11-29 every call sent one claim, and the results of a second
 * were one result signed again, which the result log's digest lookup lists once.)
 */
export function attestBody(call: number): string {
  return JSON.stringify({ kind: 'model-eval', claim: { model: 'example-7b', benchmark: 'arc-easy', score: 0.81, run: call } });
}
