import { PAYMENT_EVENT_TYPES } from '../payments/saga/events.ts';
import type { RecordedEvent } from '../events/port.ts';
import type { AuditFailure } from '../kernel/audit-failure.ts';

const AUTHORIZED = 1;
const SETTLED = 2;
const SIGNED = 4;

/**
 * The paid-call saga's order in every payment stream, checked as the log streams past (one small
 * bit set per stream): PaymentSettled only after PaymentAuthorized, ResultSigned only after
 * PaymentSettled, at most one of each. A saga cut short (authorized, never settled) is not a
 * failure: the service resumes it on the client's retry.
 */
export class SagaOrderCheck {
  private readonly progress = new Map<string, number>();

  static appliesTo(stream: string): boolean {
    return stream.startsWith('payment-');
  }

  observe(event: RecordedEvent): AuditFailure | undefined {
    const step =
      event.type === PAYMENT_EVENT_TYPES.authorized ? AUTHORIZED
      : event.type === PAYMENT_EVENT_TYPES.settled ? SETTLED
      : event.type === PAYMENT_EVENT_TYPES.signed ? SIGNED
      : 0;
    if (step === 0) return undefined;
    const seen = this.progress.get(event.stream) ?? 0;
    this.progress.set(event.stream, seen | step);
    if (seen & step) return sagaFailure(event, `a second ${event.type} in one payment stream`);
    if (step === SETTLED && !(seen & AUTHORIZED)) return sagaFailure(event, 'PaymentSettled before any PaymentAuthorized');
    if (step === SIGNED && !(seen & SETTLED)) return sagaFailure(event, 'ResultSigned before any PaymentSettled');
    if (step === AUTHORIZED && seen !== 0) return sagaFailure(event, 'PaymentAuthorized after later saga steps');
    return undefined;
  }
}

const sagaFailure = (event: RecordedEvent, message: string): AuditFailure => ({
  kind: 'saga-order',
  stream: event.stream,
  position: event.position,
  revision: event.revision,
  eventId: event.id,
  message,
});
