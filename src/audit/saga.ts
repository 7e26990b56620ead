import { PAYMENT_EVENT_TYPES } from '../payments/saga/events.ts';
import type { RecordedEvent } from '../events/port.ts';
import type { AuditFailure } from '../kernel/audit-failure.ts';

const AUTHORIZED = 1;
const SETTLED = 2;
const SIGNED = 4;

/** The saga steps a payment stream can have seen, as bits: every value is below this. */
export const SAGA_STEP_STATES = 8;

export const isPaymentStream = (stream: string): boolean => stream.startsWith('payment-');

/**
 * The paid-call saga's order in a payment stream, checked as the log streams past: given the
 * steps the stream has seen (bits, 0 for none), the steps after `event`, and what it breaks.
 * PaymentSettled only after PaymentAuthorized, ResultSigned only after PaymentSettled, at most
 * one of each. A saga cut short (authorized, never settled) is not a failure: the service
 * resumes it on the client's retry.
 */
export function sagaStep(event: RecordedEvent, seen: number): { seen: number; failure?: AuditFailure } {
  const step =
    event.type === PAYMENT_EVENT_TYPES.authorized ? AUTHORIZED
    : event.type === PAYMENT_EVENT_TYPES.settled ? SETTLED
    : event.type === PAYMENT_EVENT_TYPES.signed ? SIGNED
    : 0;
  if (step === 0) return { seen };
  const after = seen | step;
  if (seen & step) return { seen: after, failure: sagaFailure(event, `a second ${event.type} in one payment stream`) };
  if (step === SETTLED && !(seen & AUTHORIZED)) return { seen: after, failure: sagaFailure(event, 'PaymentSettled before any PaymentAuthorized') };
  if (step === SIGNED && !(seen & SETTLED)) return { seen: after, failure: sagaFailure(event, 'ResultSigned before any PaymentSettled') };
  if (step === AUTHORIZED && seen !== 0) return { seen: after, failure: sagaFailure(event, 'PaymentAuthorized after later saga steps') };
  return { seen: after };
}

/**
 * Where a payment's saga stopped, from the steps it has seen; undefined once its result is signed.
 * `not-signed`: settled with no result, so the payer was charged and has nothing yet (a retry with
 * the same payment completes the call, or answers the refusal that stopped it).
 */
export function unfinishedStep(seen: number): 'not-settled' | 'not-signed' | undefined {
  if (seen & SIGNED) return undefined;
  return seen & SETTLED ? 'not-signed' : 'not-settled';
}

const sagaFailure = (event: RecordedEvent, message: string): AuditFailure => ({
  kind: 'saga-order',
  stream: event.stream,
  position: event.position,
  revision: event.revision,
  eventId: event.id,
  message,
});
