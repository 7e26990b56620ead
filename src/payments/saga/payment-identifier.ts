import { eventId } from '../../events/event-ids.ts';
import {
  PAYMENT_EVENT_TYPES,
  paymentIdentifierBoundSchema,
  paymentIdentifierStreamName,
  type PaymentIdentifierBound,
} from './events.ts';
import { WrongExpectedRevisionError, type EventStore } from '../../events/port.ts';
import type { VerifiedPayment } from '../settlers/settler.ts';
import { canonicalSha256 } from '../../signing/hash.ts';

/**
 * The x402 payment-identifier extension as an idempotency key: the first payload sent with an
 * identifier binds it; the same identifier with the same payload is answered like a retry of that
 * payment (the stored response), with another payload 409.
 */
export interface PaymentIdentifierClaim {
  stream: string;
  binding: PaymentIdentifierBound;
}

export type IdentifierCheck = { kind: 'ok'; claim?: PaymentIdentifierClaim } | { kind: 'conflict'; message: string };

const conflict = (id: string): IdentifierCheck => ({
  kind: 'conflict',
  message: `payment identifier ${id} was already used with another payment or request`,
});

export function payloadHashOf(requestHash: string, payment: VerifiedPayment): string {
  return canonicalSha256({ requestHash, authorization: { ...payment.authorization }, signature: payment.signature.toLowerCase() });
}

async function readBinding(store: EventStore, stream: string): Promise<PaymentIdentifierBound | undefined> {
  const [first] = await store.readStream(stream, { maxCount: 1 });
  return first ? paymentIdentifierBoundSchema.parse(first.data) : undefined;
}

/** Read-only: a conflict is answered before anything else happens. Returns the claim to bind when unbound. */
export async function checkPaymentIdentifier(
  store: EventStore,
  payer: string,
  paymentIdentifier: string,
  paymentStream: string,
  call: { requestHash: string; payment: VerifiedPayment },
): Promise<IdentifierCheck> {
  const stream = paymentIdentifierStreamName(payer, paymentIdentifier);
  const binding: PaymentIdentifierBound = { paymentIdentifier, paymentStream, payloadHash: payloadHashOf(call.requestHash, call.payment) };
  const existing = await readBinding(store, stream);
  if (!existing) return { kind: 'ok', claim: { stream, binding } };
  return existing.payloadHash === binding.payloadHash ? { kind: 'ok' } : conflict(paymentIdentifier);
}

/** Binds the identifier to this payload; a concurrent binder with another payload wins or loses atomically. */
export async function bindPaymentIdentifier(store: EventStore, claim: PaymentIdentifierClaim): Promise<IdentifierCheck> {
  try {
    await store.appendToStream(
      claim.stream,
      // The payload is part of the id: appends are idempotent by id, and a binding of another
      // payload must collide, not pass as a replay of this one.
      [{ id: eventId(`${claim.stream}/${claim.binding.payloadHash}`, PAYMENT_EVENT_TYPES.identifierBound), type: PAYMENT_EVENT_TYPES.identifierBound, data: claim.binding }],
      { expectedRevision: 'no_stream' },
    );
    return { kind: 'ok' };
  } catch (err) {
    if (!(err instanceof WrongExpectedRevisionError)) throw err;
    const existing = await readBinding(store, claim.stream);
    return existing?.payloadHash === claim.binding.payloadHash ? { kind: 'ok' } : conflict(claim.binding.paymentIdentifier);
  }
}
