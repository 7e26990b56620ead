import { describe, expect, it, vi } from 'vitest';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { openEventStore } from '../../src/events/open-store.ts';
import { isSoleWriter, markExclusiveStore } from '../../src/events/sole-writer.ts';
import { signPayment } from '../support/x402-payments.ts';
import { describeOnePaymentOneRequest, useAttestFixture } from './one-payment-suite.ts';
import { paymentStreamName } from '../../src/payments/saga/events.ts';

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
  const f = useAttestFixture((settings) => openEventStore(settings, quiet));

  it('a fresh payment is claimed, settled and signed without reading the claim back', async () => {
    const reads = vi.spyOn(f.service.deps.store, 'readStream');
    try {
      const p = await signPayment(f.quote);
      const first = await f.post(f.bodyA, p.header);
      expect(first.status).toBe(200);
      // The one read is the saga's look at the (absent) stream before claiming it.
      const stream = paymentStreamName(p.authorization.from, p.authorization.nonce);
      expect(reads.mock.calls.filter(([read]) => read === stream)).toHaveLength(1);
    } finally {
      reads.mockRestore();
    }
  });

  describeOnePaymentOneRequest('a payment pays for one request, once', f);
});
