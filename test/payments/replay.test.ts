import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_EVENT_TYPES } from '../../src/events/payment-events.ts';
import { PAYMENT_REASONS } from '../../src/payments/reasons.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { fetchQuote, signPayment } from '../support/x402-payments.ts';

let service: TestService;
let url: string;
let quote: PaymentRequired;
const bodyA = JSON.stringify({ kind: 'model-eval', claim: { model: 'a', score: 0.1 } });
const bodyB = JSON.stringify({ kind: 'model-eval', claim: { model: 'b', score: 0.2 } });
const post = (body: string, payment: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': payment }, body });

beforeAll(async () => {
  service = await startTestService();
  url = `${service.url}/v1/veritrack/attest`;
  quote = await fetchQuote(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodyA });
});
afterAll(async () => {
  await service?.stop();
});

async function typesIn(stream: string): Promise<string[]> {
  return (await service.deps.store.readStream(stream)).map((e) => e.type);
}

describe('a payment pays for one request, once', () => {
  it('the same payment with the same request returns the same body, byte for byte, without a second settlement', async () => {
    const p = await signPayment(quote);
    const first = await post(bodyA, p.header);
    expect(first.status).toBe(200);
    const firstText = await first.text();
    await new Promise((r) => setTimeout(r, 1100)); // a second later: a fresh clock would show
    const again = await post(bodyA, p.header);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(firstText);
    expect(again.headers.get('payment-response')).toBe(first.headers.get('payment-response'));
    const stream = `payment-${p.authorization.from.toLowerCase()}-${p.authorization.nonce}`;
    expect(await typesIn(stream)).toEqual([PAYMENT_EVENT_TYPES.authorized, PAYMENT_EVENT_TYPES.settled, PAYMENT_EVENT_TYPES.signed]);
  });

  it('the same payment with another request is refused: payment already used for another request', async () => {
    const p = await signPayment(quote);
    expect((await post(bodyA, p.header)).status).toBe(200);
    const reuse = await post(bodyB, p.header);
    expect(reuse.status).toBe(402);
    expect(decodePaymentRequiredHeader(reuse.headers.get('payment-required')!).error).toBe(PAYMENT_REASONS.nonceUsed);
    expect(((await reuse.json()) as { message: string }).message).toMatch(/payment already used for another request/);
  });

  it('50 concurrent requests carrying one payment: one settlement, and every 200 carries the same result', async () => {
    const p = await signPayment(quote);
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(bodyA, p.header)));
    const texts = await Promise.all(answers.map((r) => r.text()));
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(new Set(texts).size).toBe(1);
    const stream = `payment-${p.authorization.from.toLowerCase()}-${p.authorization.nonce}`;
    const types = await typesIn(stream);
    expect(types.filter((t) => t === PAYMENT_EVENT_TYPES.settled)).toHaveLength(1);
    expect(types).toHaveLength(3);
  });

  it('concurrent requests carrying one payment for different requests: one wins, the others get 402', async () => {
    const p = await signPayment(quote);
    const answers = await Promise.all([bodyA, bodyB, bodyA, bodyB].map((b) => post(b, p.header)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 402)).toBe(true);
    const okBodies = new Set(await Promise.all(answers.filter((r) => r.status === 200).map((r) => r.text())));
    expect(okBodies.size).toBe(1);
  });
});

describe('the payment-identifier extension', () => {
  const withId = (id: string) => ({ 'payment-identifier': { info: { required: false, id } } });

  it('the same id with the same payload gets the stored response', async () => {
    const p = await signPayment(quote, { extensions: withId('pay_replay_test_0001') });
    const first = await post(bodyA, p.header);
    expect(first.status).toBe(200);
    const again = await post(bodyA, p.header);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(await first.text());
  });

  it('the same id with another payload -> 409, nothing charged', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const first = await signPayment(quote, { account, extensions: withId('pay_conflict_test_0001') });
    expect((await post(bodyA, first.header)).status).toBe(200);
    const second = await signPayment(quote, { account, extensions: withId('pay_conflict_test_0001') });
    const conflict = await post(bodyA, second.header);
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { error: string }).error).toBe('payment_identifier_conflict');
    const stream = `payment-${account.address.toLowerCase()}-${second.authorization.nonce}`;
    expect(await typesIn(stream)).toEqual([]);
  });

  it('identifiers are scoped by payer: another payer may use the same id', async () => {
    const p = await signPayment(quote, { extensions: withId('pay_conflict_test_0001') });
    expect((await post(bodyA, p.header)).status).toBe(200);
  });

  it('a malformed identifier is a payload problem (402)', async () => {
    const p = await signPayment(quote, { extensions: withId('short') });
    const res = await post(bodyA, p.header);
    expect(res.status).toBe(402);
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required')!).error).toBe(PAYMENT_REASONS.payload);
  });

  it('the quote declares the extension', () => {
    expect(quote.extensions?.['payment-identifier']).toBeDefined();
  });
});
