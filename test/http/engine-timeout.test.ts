import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { paymentStreamName } from '../../src/payments/saga/events.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { fetchQuote, signPayment } from '../support/x402-payments.ts';

const PATH = '/v1/utils/doc-convert';
/** 8,000 paragraphs: 0.7-2 s of conversion on an engine thread, measured cold, far past 200 ms and well within the default limit. */
const SLOW_INPUT = { text: 'word\n\n'.repeat(8_000), to: 'json' };

// Two services on one store, as two processes on one EventStoreDB would be, or one restarted
// with a longer limit: one stops every engine job at 200 ms, the other has the default limit.
const store = createMemoryEventStore();
let hurried: TestService;
let patient: TestService;
beforeAll(async () => {
  hurried = await startTestService({ ENGINE_JOB_TIMEOUT_MS: '200' }, () => store);
  patient = await startTestService({}, () => store);
});
afterAll(async () => {
  await hurried?.stop();
  await patient?.stop();
});

const pay = (service: TestService, paymentHeader: string): Promise<Response> =>
  fetch(`${service.url}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': paymentHeader }, body: JSON.stringify(SLOW_INPUT) });

describe('a paid call whose engine runs past ENGINE_JOB_TIMEOUT_MS', () => {
  it('is answered 503 engine_timeout with Retry-After, charges nothing and leaves the payment unspent: the same payment then buys the result', async () => {
    const quote = await fetchQuote(`${hurried.url}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(SLOW_INPUT) });
    const payment = await signPayment(quote);

    const stopped = await pay(hurried, payment.header);
    expect(stopped.status).toBe(503);
    expect(stopped.headers.get('retry-after')).toBe('5');
    expect(stopped.headers.get('payment-response')).toBeNull();
    expect(await stopped.json()).toMatchObject({
      error: 'engine_timeout',
      message: expect.stringMatching(/time limit, ENGINE_JOB_TIMEOUT_MS of 200 ms; if this repeats, the input costs too much to run: split it.*nothing was charged/),
    });
    // No claim, no settlement, no result: nothing of the payment is stored.
    expect(await store.readStream(paymentStreamName(payment.authorization.from, payment.authorization.nonce))).toEqual([]);

    const paid = await pay(patient, payment.header);
    expect(paid.status).toBe(200);
    expect(paid.headers.get('payment-response')).not.toBeNull();
    expect(await paid.json()).toMatchObject({ kind: 'utility-receipt', utility_result: { outcome: 'CONVERTED', block_counts: { paragraph: 8_000 } } });
  }, 30_000);
});
