import { decodePaymentRequiredHeader } from '@x402/core/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalog, pricedOperations } from '../../src/catalog/index.ts';
import { plannedOperation } from '../../src/kernel/route-kit/planned.ts';
import type { PricedOperation } from '../../src/kernel/operation.ts';
import { BASE_USDC } from '../../src/config.ts';
import { PAYMENT_REASONS } from '../../src/payments/x402/reasons.ts';
import { startTestService, useTestService, type TestService } from '../support/service.ts';
import { fetchQuote, signPayment } from '../support/x402-payments.ts';

// An operation whose example names stored state (a lease to settle) is answered before the quote
// while that state does not exist: it is quoted in its own family's tests, after creating it.
const built = pricedOperations().filter((op) => op.command && !op.precheckState);
const unbuilt = pricedOperations().filter((op) => !op.command);

function requestOf(service: TestService, op: PricedOperation, input: unknown = op.example): [string, RequestInit] {
  if (op.method === 'GET') return [`${service.url}${op.path}?${new URLSearchParams(input as Record<string, string>)}`, {}];
  return [`${service.url}${op.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) }];
}

describe('402 quotes', () => {
  const service = useTestService();

  it('there is at least one built priced operation to quote', () => expect(built.length).toBeGreaterThan(0));

  for (const op of built) {
    it(`${op.method} ${op.path}: decodes with the official x402 decoder, amount = price x 10^6`, async () => {
      const res = await fetch(...requestOf(service, op));
      expect(res.status).toBe(402);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('access-control-expose-headers')).toContain('PAYMENT-REQUIRED');
      const header = res.headers.get('payment-required')!;
      expect(header).toMatch(/^[A-Za-z0-9+/]+=*$/); // standard base64, not base64url
      const quote = decodePaymentRequiredHeader(header);
      expect(quote.x402Version).toBe(2);
      expect(quote.resource.url).toBe(`${service.deps.baseUrl}${op.path}`);
      expect(quote.accepts).toHaveLength(1);
      const [req] = quote.accepts;
      expect(req).toMatchObject({
        scheme: 'exact',
        network: 'eip155:8453',
        asset: BASE_USDC,
        payTo: service.deps.settings.PAY_TO,
        maxTimeoutSeconds: 300,
        extra: { name: 'USD Coin', version: '2' },
      });
      expect(req!.amount).toBe(String(Math.round(Number(op.priceUsd) * 1_000_000)));
      expect((quote.extensions as { bazaar?: { info?: { input?: { method?: string } } } }).bazaar?.info?.input?.method).toBe(op.method);
      const v1 = (await res.json()) as { x402Version: number; accepts: Array<{ maxAmountRequired: string; network: string }> };
      expect(v1.x402Version).toBe(1);
      expect(v1.accepts[0]).toMatchObject({ maxAmountRequired: req!.amount, network: 'base' });
    });
  }

  it('validates the input before quoting: invalid input -> 422 and no quote', async () => {
    const op = built.find((o) => o.id === 'veritrack.attest')!;
    const res = await fetch(...requestOf(service, op, { kind: 'x' }));
    expect(res.status).toBe(422);
    expect(res.headers.get('payment-required')).toBeNull();
    expect(await res.json()).toMatchObject({ error: 'validation_error', outcome: 'INVALID-INPUT', issues: [{ path: 'claim', message: 'is required' }] });
  });

  it('every catalogued priced operation is built (one that is not answers 501: below)', () => {
    expect(unbuilt.map((op) => op.id)).toEqual([]);
  });

  it('answers CORS preflight with the payment headers allowed', async () => {
    const res = await fetch(`${service.url}/v1/veritrack/attest`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')).toContain('PAYMENT-SIGNATURE');
    expect(res.headers.get('access-control-allow-headers')).toContain('X-PAYMENT');
  });

  it('HEAD on a priced GET route is quoted like GET, and a payment sent with it is not taken (HEAD is safe)', async () => {
    const url = `${service.url}/v1/signed-research?topic=momentum`;
    const unpaid = await fetch(url, { method: 'HEAD' });
    expect(unpaid.status).toBe(402);
    expect(decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!).accepts[0]!.amount).toBe('500000');

    const payment = await signPayment(await fetchQuote(url));
    const head = await fetch(url, { method: 'HEAD', headers: { 'PAYMENT-SIGNATURE': payment.header } });
    expect(head.status).toBe(402);
    expect(head.headers.get('payment-response')).toBeNull();
    expect(decodePaymentRequiredHeader(head.headers.get('payment-required')!).error).toBe(PAYMENT_REASONS.headIsNotPaid);

    // The payment is still good for the GET it was signed for.
    const get = await fetch(url, { headers: { 'PAYMENT-SIGNATURE': payment.header } });
    expect(get.status).toBe(200);
    expect(get.headers.get('payment-response')).not.toBeNull();
  });

  it('counts correct 402 challenges in the public stats, and no per-requester data', async () => {
    const stats = (await (await fetch(`${service.url}/v1/public/stats`)).json()) as Record<string, unknown>;
    expect(stats.paymentChallenges).toBeGreaterThan(0);
    expect(Object.keys(stats).sort()).toEqual(['cacheSeconds', 'generatedAt', 'paidCalls', 'paymentChallenges', 'revenueAtomic', 'revenueUsd']);
  });
});

// No catalogued operation is left unbuilt, so the service is started here with one the catalogue
// does not hold: what a new operation catalogued before its engine answers.
describe('an operation catalogued but not built', () => {
  const planned = plannedOperation({
    id: 'veritrack.planned-probe',
    method: 'POST',
    path: '/v1/veritrack/planned-probe',
    family: 'trust',
    priceUsd: '0.25',
    summary: 'A route of this test only.',
    keyFamily: 'veritrack',
    signedMember: null,
  });
  let service: TestService | undefined;
  beforeAll(async () => {
    service = await startTestService({}, undefined, { routes: [...catalog, planned] });
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('answers 501 not_implemented and is never quoted, a payment sent or not', async () => {
    const payment = Buffer.from(JSON.stringify({ x402Version: 2 })).toString('base64');
    for (const headers of [{}, { 'PAYMENT-SIGNATURE': payment }] as Array<Record<string, string>>) {
      const res = await fetch(`${service!.url}${planned.path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
      expect(res.status).toBe(501);
      expect(res.headers.get('payment-required')).toBeNull();
      expect(res.headers.get('payment-response')).toBeNull();
      expect(await res.json()).toMatchObject({ error: 'not_implemented', operation: planned.id });
    }
  });
});
