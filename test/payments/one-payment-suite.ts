import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../src/config.ts';
import type { EventStore } from '../../src/events/port.ts';
import { PAYMENT_EVENT_TYPES, paymentStreamName } from '../../src/payments/saga/events.ts';
import { PAYMENT_REASONS } from '../../src/payments/x402/reasons.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { fetchQuote, signPayment, type HandMadePayment } from '../support/x402-payments.ts';

/** Paid veritrack attest calls against a test service: what the payment suites share. */
export interface AttestFixture {
  service: TestService;
  quote: PaymentRequired;
  bodyA: string;
  bodyB: string;
  post(body: string, payment: string): Promise<Response>;
  /** The event types of a payment's saga stream, in order. */
  sagaOf(payment: HandMadePayment): Promise<string[]>;
}

/** Starts a service (on the given store) before the file's tests and stops it after them. */
export function useAttestFixture(makeStore?: (settings: Settings) => Promise<EventStore> | EventStore): AttestFixture {
  const fixture = {
    bodyA: JSON.stringify({ kind: 'model-eval', claim: { model: 'a', score: 0.1 } }),
    bodyB: JSON.stringify({ kind: 'model-eval', claim: { model: 'b', score: 0.2 } }),
    post: (body: string, payment: string) =>
      fetch(`${fixture.service.url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': payment }, body }),
    sagaOf: async (p: HandMadePayment) =>
      (await fixture.service.deps.store.readStream(paymentStreamName(p.authorization.from, p.authorization.nonce))).map((e) => e.type),
  } as AttestFixture;
  beforeAll(async () => {
    fixture.service = await startTestService({}, makeStore);
    fixture.quote = await fetchQuote(`${fixture.service.url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: fixture.bodyA });
  });
  afterAll(async () => {
    await fixture.service?.stop();
  });
  return fixture;
}

/** The guarantees of "a payment pays for one request, once", whatever store the saga runs on. */
export function describeOnePaymentOneRequest(title: string, f: AttestFixture): void {
  describe(title, () => {
    it('the same payment with the same request returns the same body, byte for byte, without a second settlement', async () => {
      const p = await signPayment(f.quote);
      const first = await f.post(f.bodyA, p.header);
      expect(first.status).toBe(200);
      const firstText = await first.text();
      await new Promise((r) => setTimeout(r, 1100)); // a second later: a fresh clock would show
      const again = await f.post(f.bodyA, p.header);
      expect(again.status).toBe(200);
      expect(await again.text()).toBe(firstText);
      expect(again.headers.get('payment-response')).toBe(first.headers.get('payment-response'));
      expect(await f.sagaOf(p)).toEqual([PAYMENT_EVENT_TYPES.authorized, PAYMENT_EVENT_TYPES.settled, PAYMENT_EVENT_TYPES.signed]);
    });

    it('the same payment with another request is refused: payment already used for another request', async () => {
      const p = await signPayment(f.quote);
      expect((await f.post(f.bodyA, p.header)).status).toBe(200);
      const reuse = await f.post(f.bodyB, p.header);
      expect(reuse.status).toBe(402);
      expect(decodePaymentRequiredHeader(reuse.headers.get('payment-required')!).error).toBe(PAYMENT_REASONS.nonceUsed);
      expect(((await reuse.json()) as { message: string }).message).toMatch(/payment already used for another request/);
    });

    it('50 concurrent requests carrying one payment: one settlement, and every 200 carries the same result', async () => {
      const p = await signPayment(f.quote);
      const answers = await Promise.all(Array.from({ length: 50 }, () => f.post(f.bodyA, p.header)));
      const texts = await Promise.all(answers.map((r) => r.text()));
      expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200));
      expect(new Set(texts).size).toBe(1);
      expect(await f.sagaOf(p)).toEqual([PAYMENT_EVENT_TYPES.authorized, PAYMENT_EVENT_TYPES.settled, PAYMENT_EVENT_TYPES.signed]);
    });

    it('concurrent requests carrying one payment for different requests: one wins, the others get 402', async () => {
      const p = await signPayment(f.quote);
      const bodies = Array.from({ length: 10 }, (_, i) => JSON.stringify({ kind: 'model-eval', claim: { model: `m${i}`, score: i / 10 } }));
      const answers = await Promise.all(bodies.map((b) => f.post(b, p.header)));
      expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
      expect(answers.filter((r) => r.status === 402)).toHaveLength(9);
    });
  });
}
