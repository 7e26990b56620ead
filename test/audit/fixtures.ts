import { randomBytes, randomUUID } from 'node:crypto';
import { paymentStreamName } from '../../src/payments/saga/events.ts';
import type { EventData, EventStore } from '../../src/events/port.ts';
import type { JsonObject } from '../../src/signing/rfc8785.ts';
import type { Keyring } from '../../src/signing/keyring.ts';
import { seal } from '../../src/signing/seal.ts';

export const SECRET = 'audit-test-secret-0123456789abcdef0123456789';

export function newPaymentStream(): string {
  return paymentStreamName(`0x${randomBytes(20).toString('hex')}`, `0x${randomBytes(32).toString('hex')}`);
}

export function authorized(): EventData {
  return { id: randomUUID(), type: 'PaymentAuthorized', data: { amount: '1000' } };
}

export function settled(): EventData {
  return { id: randomUUID(), type: 'PaymentSettled', data: { mode: 'local', demo: true } };
}

/** A ResultSigned event as the service writes it; `tamper` edits the data after signing. */
export function signed(keyring: Keyring, record: JsonObject, tamper: (data: JsonObject) => void = () => {}): EventData {
  const data: JsonObject = { operation: 'utils.hash', keyFamily: 'utils', record, ...seal(keyring, 'utils', record), signedAt: 1_700_000_000 };
  tamper(data);
  return { id: randomUUID(), type: 'ResultSigned', data };
}

/** A whole saga in one payment stream, appended step by step. */
export async function appendSaga(store: EventStore, keyring: Keyring, record: JsonObject, tamper?: (data: JsonObject) => void): Promise<string> {
  const stream = newPaymentStream();
  await store.appendToStream(stream, [authorized()], { expectedRevision: 'no_stream' });
  await store.appendToStream(stream, [settled()], { expectedRevision: 0n });
  await store.appendToStream(stream, [signed(keyring, record, tamper)], { expectedRevision: 1n });
  return stream;
}
