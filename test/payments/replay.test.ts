import { decodePaymentRequiredHeader } from '@x402/core/http';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { PAYMENT_REASONS } from '../../src/payments/x402/reasons.ts';
import { signPayment } from '../support/x402-payments.ts';
import { describeOnePaymentOneRequest, useAttestFixture } from './one-payment-suite.ts';

// On the in-memory store, where the saga reads every claim back; test/payments/sole-writer.test.ts
// runs the same suite on the file log, where it does not.
const f = useAttestFixture();

describeOnePaymentOneRequest('a payment pays for one request, once', f);

describe('the payment-identifier extension', () => {
  const withId = (id: string) => ({ 'payment-identifier': { info: { required: false, id } } });

  it('the same id with the same payload gets the stored response', async () => {
    const p = await signPayment(f.quote, { extensions: withId('pay_replay_test_0001') });
    const first = await f.post(f.bodyA, p.header);
    expect(first.status).toBe(200);
    const again = await f.post(f.bodyA, p.header);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(await first.text());
  });

  it('the same id with another payload -> 409, nothing charged', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const first = await signPayment(f.quote, { account, extensions: withId('pay_conflict_test_0001') });
    expect((await f.post(f.bodyA, first.header)).status).toBe(200);
    const second = await signPayment(f.quote, { account, extensions: withId('pay_conflict_test_0001') });
    const conflict = await f.post(f.bodyA, second.header);
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { error: string }).error).toBe('payment_identifier_conflict');
    expect(await f.sagaOf(second)).toEqual([]);
  });

  it('identifiers are scoped by payer: another payer may use the same id', async () => {
    const p = await signPayment(f.quote, { extensions: withId('pay_conflict_test_0001') });
    expect((await f.post(f.bodyA, p.header)).status).toBe(200);
  });

  it('a malformed identifier is a payload problem (402)', async () => {
    const p = await signPayment(f.quote, { extensions: withId('short') });
    const res = await f.post(f.bodyA, p.header);
    expect(res.status).toBe(402);
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required')!).error).toBe(PAYMENT_REASONS.payload);
  });

  it('the schema a client sends beside the identifier is ignored: its patterns never run on the server', async () => {
    // ^(a+)+$ takes time doubling with each "a" when it fails; the extension's own rules are fixed.
    const extensions = { 'payment-identifier': { info: { required: false, id: 'pay_schema_ignored_0001', x: `${'a'.repeat(12)}!` }, schema: { properties: { x: { pattern: '^(a+)+$' } } } } };
    const p = await signPayment(f.quote, { extensions });
    expect((await f.post(f.bodyA, p.header)).status).toBe(200);
    const noInfo = await signPayment(f.quote, { extensions: { 'payment-identifier': { schema: {} } } });
    const refused = await f.post(f.bodyA, noInfo.header);
    expect(refused.status).toBe(402);
    expect(decodePaymentRequiredHeader(refused.headers.get('payment-required')!)).toMatchObject({ error: PAYMENT_REASONS.payload });
  });

  it('the quote declares the extension', () => {
    expect(f.quote.extensions?.['payment-identifier']).toBeDefined();
  });
});
