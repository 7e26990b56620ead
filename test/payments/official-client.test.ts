import { decodePaymentResponseHeader } from '@x402/core/http';
import { describe, expect, it } from 'vitest';
import { PAYMENT_EVENT_TYPES, paymentStreamName } from '../../src/payments/saga/events.ts';
import { createPayingFetch } from '../support/paying-client.ts';
import { useTestService } from '../support/service.ts';

const service = useTestService();

const claim = { kind: 'model-eval', claim: { model: 'example-7b', score: 0.81 } };

describe('the official x402 client pays in local mode', () => {
  it('pays veritrack attest and gets a signed result with PAYMENT-RESPONSE', async () => {
    const pay = createPayingFetch();
    const res = await pay(`${service.url}/v1/veritrack/attest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(claim),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private');
    expect(res.headers.get('access-control-expose-headers')).toContain('PAYMENT-RESPONSE');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body['claim']).toEqual(claim.claim);
    expect(body['sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(body['ed25519Sig']).toMatch(/^[0-9a-f]{128}$/);
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settlement.success).toBe(true);
    expect(settlement.transaction).toMatch(/^local-demo:[0-9a-f]{64}$/);
    expect(settlement.payer).toBe(pay.address.toLowerCase());

    const events: string[] = [];
    for await (const e of service.deps.store.readAll()) if (e.stream.startsWith(`payment-${pay.address.toLowerCase()}-`)) events.push(e.type);
    expect(events).toEqual([PAYMENT_EVENT_TYPES.authorized, PAYMENT_EVENT_TYPES.settled, PAYMENT_EVENT_TYPES.signed]);
    expect(paymentStreamName(pay.address, '0xAB')).toBe(`payment-${pay.address.toLowerCase()}-0xab`);
  });
});
