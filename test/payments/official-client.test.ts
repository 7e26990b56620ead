import { decodePaymentResponseHeader } from '@x402/core/http';
import { ExactEvmSchemeV1 } from '@x402/evm/v1';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { PAYMENT_EVENT_TYPES, paymentStreamName } from '../../src/payments/saga/events.ts';
import { createPayingFetch, TEST_SPEND_CAP_USD } from '../support/paying-client.ts';
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

// A client of x402 v1 reads the quote from the 402 body; the official client reads the v2 header
// when there is one. With the header hidden, as from a server of v1, it takes the body's quote,
// signs with its v1 scheme and sends X-PAYMENT: the service's v1 side, met by the SDK's own code.
describe('the official x402 client pays over x402 v1', () => {
  const hidingTheV2Quote: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (res.status !== 402) return res;
    const headers = new Headers(res.headers);
    headers.delete('payment-required');
    return new Response(await res.arrayBuffer(), { status: 402, headers });
  };

  it('pays veritrack attest with X-PAYMENT and gets the settlement in X-PAYMENT-RESPONSE', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const client = new x402Client().registerV1('base', new ExactEvmSchemeV1(account)).setSpendControls({ maxAmountPerPayment: TEST_SPEND_CAP_USD });
    const sent: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const headers = new Headers(input instanceof Request ? input.headers : init?.headers);
      sent.push([...headers.keys()].filter((name) => /payment/i.test(name)).join(','));
      return hidingTheV2Quote(input, init);
    };
    const pay = wrapFetchWithPayment(recording, client);
    const res = await pay(`${service.url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(claim) });
    expect(res.status).toBe(200);
    expect(sent).toEqual(['', 'x-payment']);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body['claim']).toEqual(claim.claim);
    const settlement = decodePaymentResponseHeader(res.headers.get('x-payment-response')!);
    expect(settlement).toMatchObject({ success: true, payer: account.address.toLowerCase() });
    expect(settlement.transaction).toMatch(/^local-demo:[0-9a-f]{64}$/);
  });
});
