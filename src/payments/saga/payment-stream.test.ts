import { describe, expect, it } from 'vitest';
import { deciderSpec } from '../../../test/support/decider-spec.ts';
import { PAYMENT_EVENT_TYPES, type PaymentAuthorized, type PaymentSettled, type ResultSigned } from './events.ts';
import { PAYMENT_REUSED, paymentStreamDecider, type PaymentStreamEvent } from './payment-stream.ts';

const authorized = (requestHash = 'a'.repeat(64)): PaymentAuthorized => ({
  requestHash,
  operation: 'veritrack.attest',
  method: 'POST',
  path: '/v1/veritrack/attest',
  payer: `0x${'11'.repeat(20)}`,
  payTo: `0x${'22'.repeat(20)}`,
  amount: '250000',
  network: 'eip155:8453',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  nonce: `0x${'33'.repeat(32)}`,
  validBefore: '1767226000',
  x402Version: 2,
  authorization: {},
  signature: '0x',
  authorizedAt: 1_767_225_600,
});
const settled: PaymentSettled = { mode: 'local', transaction: 'local-demo:x', network: 'eip155:8453', payer: `0x${'11'.repeat(20)}`, amount: '250000', demo: true };
const signed: ResultSigned = { operation: 'veritrack.attest', keyFamily: 'veritrack', record: { kind: 'x' }, sha256: 'b'.repeat(64), ed25519Sig: 'c'.repeat(128), keyId: 'd'.repeat(16), signedAt: 1_767_225_600 };

const claimedEvent: PaymentStreamEvent = { type: PAYMENT_EVENT_TYPES.authorized, data: authorized() };
const settledEvent: PaymentStreamEvent = { type: PAYMENT_EVENT_TYPES.settled, data: settled };
const signedEvent: PaymentStreamEvent = { type: PAYMENT_EVENT_TYPES.signed, data: signed };

const spec = deciderSpec(paymentStreamDecider);

describe('the payment stream decider', () => {
  it('given no events, when the payment is claimed, then PaymentAuthorized', () => {
    spec.given([]).when({ type: 'ClaimPayment', authorized: authorized() }).then([claimedEvent]);
  });

  it('given a claim for one request, when the same request claims again, then nothing new (a retry)', () => {
    spec.given([claimedEvent]).when({ type: 'ClaimPayment', authorized: authorized() }).thenNothing();
  });

  it('given a claim for one request, when another request claims the payment, then it is refused as reused', () => {
    spec.given([claimedEvent]).when({ type: 'ClaimPayment', authorized: authorized('e'.repeat(64)) }).thenRefuses({ error: PAYMENT_REUSED, message: /another request/ });
  });

  it('settles only a claimed payment, and only once', () => {
    spec.given([]).when({ type: 'RecordSettlement', settled }).thenRefuses({ error: 'not_claimed' });
    spec.given([claimedEvent]).when({ type: 'RecordSettlement', settled }).then([settledEvent]);
    spec.given([claimedEvent, settledEvent]).when({ type: 'RecordSettlement', settled }).thenNothing();
  });

  it('signs only a settled payment, and only once', () => {
    spec.given([claimedEvent]).when({ type: 'RecordResult', signed }).thenRefuses({ error: 'not_settled' });
    spec.given([claimedEvent, settledEvent]).when({ type: 'RecordResult', signed }).then([signedEvent]);
    spec.given([claimedEvent, settledEvent, signedEvent]).when({ type: 'RecordResult', signed }).thenNothing();
  });

  it('folds the stream into the progress each step resumes from, with revisions in stream order', () => {
    const progress = spec.given([claimedEvent, settledEvent]).state;
    expect(progress.authorized?.revision).toBe(0n);
    expect(progress.settled?.revision).toBe(1n);
    expect(progress.signed).toBeUndefined();
  });
});
