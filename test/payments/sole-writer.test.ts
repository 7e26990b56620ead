import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { openEventStore } from '../../src/events/open-store.ts';
import { PAYMENT_EVENT_TYPES } from '../../src/events/payment-events.ts';
import { isSoleWriter, markExclusiveStore } from '../../src/events/sole-writer.ts';
import { PAYMENT_REASONS } from '../../src/payments/reasons.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { fetchQuote, signPayment } from '../support/x402-payments.ts';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

describe('isSoleWriter', () => {
  it('is false for a store nobody marked (EventStoreDB, hand-built stores)', () => {
    expect(isSoleWriter(createMemoryEventStore(), {})).toBe(false);
  });

  it('is true for the first owner of a marked store, and false for everyone once a second owner asks', () => {
    const store = markExclusiveStore(createMemoryEventStore());
    const first = {};
    expect(isSoleWriter(store, first)).toBe(true);
    expect(isSoleWriter(store, first)).toBe(true);
    expect(isSoleWriter(store, {})).toBe(false);
    expect(isSoleWriter(store, first)).toBe(false);
  });
});

// The file log opened for writing is exclusive to this process: the saga skips reading its claim
// back, and every guarantee of the read-back path must hold all the same.
describe('paid calls on the exclusively held file log', () => {
  let service: TestService;
  let url: string;
  let quote: PaymentRequired;
  const bodyA = JSON.stringify({ kind: 'model-eval', claim: { model: 'a', score: 0.1 } });
  const bodyB = JSON.stringify({ kind: 'model-eval', claim: { model: 'b', score: 0.2 } });
  const post = (body: string, payment: string) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': payment }, body });

  beforeAll(async () => {
    service = await startTestService({}, (settings) => openEventStore(settings, quiet));
    url = `${service.url}/v1/veritrack/attest`;
    quote = await fetchQuote(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodyA });
  });
  afterAll(async () => {
    await service?.stop();
  });

  const streamOf = (p: Awaited<ReturnType<typeof signPayment>>) => `payment-${p.authorization.from.toLowerCase()}-${p.authorization.nonce}`;

  it('a fresh payment is claimed, settled and signed without reading the claim back', async () => {
    const reads = vi.spyOn(service.deps.store, 'readStream');
    try {
      const p = await signPayment(quote);
      const first = await post(bodyA, p.header);
      expect(first.status).toBe(200);
      // The one read is the saga's look at the (absent) stream before claiming it.
      expect(reads.mock.calls.filter(([stream]) => stream === streamOf(p))).toHaveLength(1);
      const again = await post(bodyA, p.header);
      expect(await again.text()).toBe(await first.text());
      const reuse = await post(bodyB, p.header);
      expect(reuse.status).toBe(402);
      expect(decodePaymentRequiredHeader(reuse.headers.get('payment-required')!).error).toBe(PAYMENT_REASONS.nonceUsed);
    } finally {
      reads.mockRestore();
    }
  });

  it('50 concurrent duplicates: one settlement, one result for all', async () => {
    const p = await signPayment(quote);
    const answers = await Promise.all(Array.from({ length: 50 }, () => post(bodyA, p.header)));
    const texts = await Promise.all(answers.map((r) => r.text()));
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(new Set(texts).size).toBe(1);
    expect((await service.deps.store.readStream(streamOf(p))).map((e) => e.type)).toEqual([
      PAYMENT_EVENT_TYPES.authorized,
      PAYMENT_EVENT_TYPES.settled,
      PAYMENT_EVENT_TYPES.signed,
    ]);
  });

  it('concurrent requests carrying one payment for different requests: one wins, the others get 402', async () => {
    const p = await signPayment(quote);
    const bodies = Array.from({ length: 10 }, (_, i) => JSON.stringify({ kind: 'model-eval', claim: { model: `m${i}`, score: i / 10 } }));
    const answers = await Promise.all(bodies.map((b) => post(b, p.header)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 402)).toHaveLength(9);
  });
});
