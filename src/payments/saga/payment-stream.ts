import {
  PAYMENT_EVENT_TYPES,
  paymentAuthorizedSchema,
  paymentSettledSchema,
  resultSignedSchema,
  type PaymentAuthorized,
  type PaymentSettled,
  type ResultSigned,
} from './events.ts';
import type { EventStore, RecordedEvent } from '../../events/port.ts';

interface Step<T> {
  data: T;
  revision: bigint;
}

/** How far a payment's saga got, read from its stream (zod at the boundary). */
export interface PaymentProgress {
  authorized?: Step<PaymentAuthorized>;
  settled?: Step<PaymentSettled>;
  signed?: Step<ResultSigned>;
  /** Unix ms at which the store accepted the stream's last event. */
  lastRecordedAt?: number;
}

export async function readPaymentStream(store: EventStore, stream: string): Promise<PaymentProgress> {
  const events = await store.readStream(stream);
  const progress: PaymentProgress = {};
  for (const event of events) {
    progress.lastRecordedAt = event.recordedAt;
    if (event.type === PAYMENT_EVENT_TYPES.authorized) progress.authorized = step(event, paymentAuthorizedSchema.parse(event.data));
    else if (event.type === PAYMENT_EVENT_TYPES.settled) progress.settled = step(event, paymentSettledSchema.parse(event.data));
    else if (event.type === PAYMENT_EVENT_TYPES.signed) progress.signed = step(event, resultSignedSchema.parse(event.data));
  }
  return progress;
}

function step<T>(event: RecordedEvent, data: T): Step<T> {
  return { data, revision: event.revision };
}

/**
 * A stream that is unfinished and moved recently is most likely being moved forward by another
 * process right now (the winner of the claim race, or an instance sharing the store); resuming it
 * at once would race that process to the settler. Wait while it keeps moving, up to a bound, then
 * resume: a process that stopped moving it has crashed, and the saga is built to be resumed.
 */
export const IN_FLIGHT_IDLE_MS = 3_000;
const IN_FLIGHT_MAX_WAIT_MS = 15_000;
const POLL_MS = 20;

export async function waitWhileInFlight(
  store: EventStore,
  stream: string,
  seen: PaymentProgress,
  options: { justClaimedElsewhere?: boolean; now?: () => number } = {},
): Promise<PaymentProgress> {
  const now = options.now ?? Date.now;
  const started = now();
  let progress = seen;
  let lastMoveAt = options.justClaimedElsewhere ? started : (progress.lastRecordedAt ?? 0);
  let lastRecordedAt = progress.lastRecordedAt;
  while (!progress.signed && now() - lastMoveAt < IN_FLIGHT_IDLE_MS && now() - started < IN_FLIGHT_MAX_WAIT_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    progress = await readPaymentStream(store, stream);
    if (progress.lastRecordedAt !== lastRecordedAt) {
      lastRecordedAt = progress.lastRecordedAt;
      lastMoveAt = now();
    }
  }
  return progress;
}
