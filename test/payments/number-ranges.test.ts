import { decodePaymentRequiredHeader } from '@x402/core/http';
import { describe, expect, it } from 'vitest';
import { PAYMENT_REASONS } from '../../src/payments/x402/reasons.ts';
import { useAttestFixture } from './one-payment-suite.ts';
import { asV1Header, encodePayload, signPayment } from '../support/x402-payments.ts';

const f = useAttestFixture();
const beyondUint256 = '9'.repeat(78);

describe('a payment number outside its type', () => {
  for (const member of ['validBefore', 'validAfter', 'value'] as const) {
    it(`${member} beyond uint256 is a 402 with the payload reason naming it, never a 500`, async () => {
      const p = await signPayment(f.quote);
      const payload = structuredClone(p.payload);
      (payload.payload as { authorization: Record<string, string> }).authorization[member] = beyondUint256;
      for (const header of [encodePayload(payload), asV1Header({ ...p, payload })]) {
        const res = await fetch(`${f.service.url}/v1/veritrack/attest`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [header === encodePayload(payload) ? 'PAYMENT-SIGNATURE' : 'X-PAYMENT']: header },
          body: f.bodyA,
        });
        expect(res.status).toBe(402);
        const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
        expect(required.error).toBe(PAYMENT_REASONS.payload);
        expect(((await res.json()) as { message: string }).message).toContain(`${member}: must be a uint256`);
      }
    });

    it(`${member} written with a leading zero is a 402 naming it: one number has one text, in the claim and the payload's hash`, async () => {
      const p = await signPayment(f.quote);
      const payload = structuredClone(p.payload);
      const authorization = (payload.payload as { authorization: Record<string, string> }).authorization;
      authorization[member] = `0${authorization[member]}`;
      const res = await fetch(`${f.service.url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': encodePayload(payload) }, body: f.bodyA });
      expect(res.status).toBe(402);
      expect(decodePaymentRequiredHeader(res.headers.get('payment-required')!).error).toBe(PAYMENT_REASONS.payload);
      expect(((await res.json()) as { message: string }).message).toContain(`${member}: must be a decimal integer string without leading zeros`);
    });
  }
});
