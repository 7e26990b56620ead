import { decodePaymentResponseHeader } from '@x402/core/http';
import { wrapFetchWithPayment } from '@x402/fetch';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import type { EventStore } from '../../src/events/port.ts';
import type { LocalChain } from '../support/chain.ts';
import { createPayingClient } from '../support/paying-client.ts';
import { paymentStreamName } from '../../src/payments/saga/events.ts';

export const ATTEST_PATH = '/v1/veritrack/attest';
export const ATTEST_BODY = JSON.stringify({ kind: 'demo', claim: { a: 1 } });
/** veritrack.attest costs $0.25: 250000 atomic USDC units. */
export const ATTEST_PRICE_ATOMIC = 250_000n;

export interface RecordingPayer {
  /** The official @x402/fetch client paying with this wallet. */
  pay: typeof fetch;
  address: Hex;
  /** Every PAYMENT-SIGNATURE header the client sent, so a test can replay one. */
  sentPayments: string[];
}

/** An official x402 client whose outgoing payment headers are recorded on the way out. */
export function recordingPayer(privateKey: Hex): RecordingPayer {
  const account = privateKeyToAccount(privateKey);
  const sentPayments: string[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    const header = new Headers(input instanceof Request ? input.headers : init?.headers).get('payment-signature');
    if (header) sentPayments.push(header);
    return fetch(input, init);
  };
  const pay = wrapFetchWithPayment(recordingFetch, createPayingClient(account)) as typeof fetch;
  return { pay, address: account.address, sentPayments };
}

export function attest(serviceUrl: string, pay: typeof fetch, headers: Record<string, string> = {}): Promise<Response> {
  return pay(`${serviceUrl}${ATTEST_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: ATTEST_BODY });
}

/** The settlement the service reported in PAYMENT-RESPONSE. */
export function paymentResponseOf(response: Response): { success: boolean; transaction: string; network: string; payer?: string } {
  const header = response.headers.get('payment-response');
  expect(header, 'PAYMENT-RESPONSE header').toBeTruthy();
  return decodePaymentResponseHeader(header!);
}

/** Event types of the payment's own stream, in order. */
export async function paymentStreamTypes(store: EventStore, payer: Hex, nonce: Hex): Promise<string[]> {
  const events = await store.readStream(paymentStreamName(payer, nonce));
  return events.map((e) => e.type);
}

/** The EIP-3009 nonce inside a PAYMENT-SIGNATURE header. */
export function nonceOf(paymentHeader: string): Hex {
  const payload = JSON.parse(Buffer.from(paymentHeader, 'base64').toString('utf8')) as { payload: { authorization: { nonce: Hex } } };
  return payload.payload.authorization.nonce;
}

/**
 * Sends a payment header that was already paid with, again: the stored answer comes back with
 * the same settlement, and no second transfer leaves the payer.
 */
export async function expectStoredReplay(replayed: { serviceUrl: string; header: string; body: unknown; transaction: string; chain: LocalChain; payer: Hex }): Promise<void> {
  const transfersBefore = await replayed.chain.usdcTransfers(replayed.payer);
  const replay = await attest(replayed.serviceUrl, fetch, { 'PAYMENT-SIGNATURE': replayed.header });
  expect(replay.status).toBe(200);
  expect(await replay.json()).toEqual(replayed.body);
  expect(paymentResponseOf(replay).transaction).toBe(replayed.transaction);
  expect(await replayed.chain.usdcTransfers(replayed.payer)).toEqual(transfersBefore);
}
