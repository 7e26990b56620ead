import { decodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_REASONS } from '../../src/payments/x402/reasons.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { asV1Header, encodePayload, fetchQuote, signPayment, type HandMadePayment } from '../support/x402-payments.ts';

let service: TestService;
let url: string;
let quote: PaymentRequired;
const body = JSON.stringify({ kind: 'model-eval', claim: { model: 'example-7b', score: 0.5 } });
const post = (headers: Record<string, string>) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

beforeAll(async () => {
  service = await startTestService();
  url = `${service.url}/v1/veritrack/attest`;
  quote = await fetchQuote(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
});
afterAll(async () => {
  await service?.stop();
});

async function eventCount(): Promise<number> {
  let n = 0;
  for await (const _ of service.deps.store.readAll()) n++;
  return n;
}

async function expectRefused(header: { name: string; value: string }, reason: string): Promise<void> {
  const before = await eventCount();
  const res = await post({ [header.name]: header.value });
  expect(res.status).toBe(402);
  const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
  expect(required.error).toBe(reason);
  expect(required.accepts[0]!.amount).toBe(quote.accepts[0]!.amount);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('access-control-expose-headers')).toContain('PAYMENT-REQUIRED');
  const v1 = (await res.json()) as { x402Version: number; error: string; message: string };
  expect(v1).toMatchObject({ x402Version: 1, error: reason });
  expect(v1.message).toMatch(/nothing was charged/);
  expect(await eventCount()).toBe(before);
}

const v2 = (p: HandMadePayment) => ({ name: 'PAYMENT-SIGNATURE', value: p.header });
const now = () => Math.floor(Date.now() / 1000);

describe('a payment that does not match the quote is refused with its reason, and nothing is written', () => {
  it('accepts the untouched payment (control)', async () => {
    const res = await post({ 'PAYMENT-SIGNATURE': (await signPayment(quote)).header });
    expect(res.status).toBe(200);
  });

  it('tampered value', async () => {
    const p = await signPayment(quote);
    const tampered = { ...p.payload, payload: { ...p.payload.payload, authorization: { ...p.authorization, value: '1' } } };
    await expectRefused({ name: 'PAYMENT-SIGNATURE', value: encodePayload(tampered) }, PAYMENT_REASONS.value);
  });

  it('wrong payTo', async () => {
    await expectRefused(v2(await signPayment(quote, { authorization: { to: '0x000000000000000000000000000000000000dEaD' } })), PAYMENT_REASONS.recipient);
  });

  it('wrong network', async () => {
    await expectRefused(v2(await signPayment(quote, { accepted: { network: 'eip155:84532' }, domain: { chainId: 84532 } })), PAYMENT_REASONS.network);
  });

  it('wrong asset', async () => {
    const asset = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
    await expectRefused(v2(await signPayment(quote, { accepted: { asset }, domain: { verifyingContract: asset } })), PAYMENT_REASONS.asset);
  });

  it('expired validBefore (less than 6 s left)', async () => {
    await expectRefused(v2(await signPayment(quote, { authorization: { validBefore: String(now() + 3) } })), PAYMENT_REASONS.validBefore);
  });

  it('future validAfter', async () => {
    await expectRefused(v2(await signPayment(quote, { authorization: { validAfter: String(now() + 120) } })), PAYMENT_REASONS.validAfter);
  });

  it('a signature by another key', async () => {
    const victim = privateKeyToAccount(generatePrivateKey());
    const forged = await signPayment(quote, { authorization: { from: victim.address } });
    await expectRefused(v2(forged), PAYMENT_REASONS.signature);
  });

  it('a signature over another token domain', async () => {
    await expectRefused(v2(await signPayment(quote, { domain: { name: 'USDC' } })), PAYMENT_REASONS.signature);
  });

  it('a garbled signature', async () => {
    const p = await signPayment(quote);
    const garbled = { ...p.payload, payload: { ...p.payload.payload, signature: `0x${'11'.repeat(65)}` } };
    await expectRefused({ name: 'PAYMENT-SIGNATURE', value: encodePayload(garbled) }, PAYMENT_REASONS.signature);
  });

  it('malformed base64', async () => {
    await expectRefused({ name: 'PAYMENT-SIGNATURE', value: 'not*base64!' }, PAYMENT_REASONS.payloadEncoding);
  });

  it('malformed JSON', async () => {
    await expectRefused({ name: 'PAYMENT-SIGNATURE', value: Buffer.from('{"x402Version": 2,').toString('base64') }, PAYMENT_REASONS.payloadJson);
  });

  it('JSON that is not a payment payload', async () => {
    await expectRefused({ name: 'PAYMENT-SIGNATURE', value: Buffer.from(JSON.stringify({ x402Version: 2, payload: {} })).toString('base64') }, PAYMENT_REASONS.payload);
  });

  it('an unknown x402 version', async () => {
    await expectRefused({ name: 'PAYMENT-SIGNATURE', value: Buffer.from(JSON.stringify({ x402Version: 7 })).toString('base64') }, PAYMENT_REASONS.version);
  });

  it('another route\'s price in accepted', async () => {
    await expectRefused(v2(await signPayment(quote, { accepted: { amount: '1' }, authorization: { value: '1' } })), PAYMENT_REASONS.value);
  });
});

describe('x402 v1', () => {
  it('pays with X-PAYMENT and finds the settlement in X-PAYMENT-RESPONSE, as v1 clients read it', async () => {
    const res = await post({ 'X-PAYMENT': asV1Header(await signPayment(quote)) });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-payment-response')).toBeTruthy();
    expect(res.headers.get('x-payment-response')).toBe(res.headers.get('payment-response'));
    expect(JSON.parse(Buffer.from(res.headers.get('x-payment-response')!, 'base64').toString('utf8'))).toMatchObject({ success: true });
  });

  it('the unpaid 402 body names both payment headers, v2 and v1', async () => {
    const res = await post({});
    expect(res.status).toBe(402);
    const { error } = (await res.json()) as { error: string };
    expect(error).toContain('PAYMENT-SIGNATURE');
    expect(error).toContain('X-PAYMENT');
  });

  it('refuses a v1 payment on another network', async () => {
    const p = await signPayment(quote);
    const v1 = Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: p.payload.payload })).toString('base64');
    await expectRefused({ name: 'X-PAYMENT', value: v1 }, PAYMENT_REASONS.network);
  });
});
