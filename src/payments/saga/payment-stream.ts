import { DomainRefusal, type Decider } from '../../kernel/decider.ts';
import type { EventStore, RecordedEvent } from '../../events/port.ts';
import {
  PAYMENT_EVENT_TYPES,
  paymentAuthorizedSchema,
  paymentSettledSchema,
  resultSignedSchema,
  type PaymentAuthorized,
  type PaymentSettled,
  type ResultSigned,
} from './events.ts';

/** One step of the saga as stored: its data and the stream revision it sits at. */
export interface Step<T> {
  data: T;
  revision: bigint;
  /** Where it sits in the log, when read from the store. */
  position?: bigint;
}

/** How far a payment's saga got: what its stream folds to. */
export interface PaymentProgress {
  authorized?: Step<PaymentAuthorized>;
  settled?: Step<PaymentSettled>;
  signed?: Step<ResultSigned>;
  /** Unix ms at which the store accepted the stream's last event. */
  lastRecordedAt?: number;
}

export type PaymentStreamEvent =
  | { type: typeof PAYMENT_EVENT_TYPES.authorized; data: PaymentAuthorized; revision?: bigint; position?: bigint; recordedAt?: number }
  | { type: typeof PAYMENT_EVENT_TYPES.settled; data: PaymentSettled; revision?: bigint; position?: bigint; recordedAt?: number }
  | { type: typeof PAYMENT_EVENT_TYPES.signed; data: ResultSigned; revision?: bigint; position?: bigint; recordedAt?: number };

export type PaymentStreamCommand =
  | { type: 'ClaimPayment'; authorized: PaymentAuthorized }
  | { type: 'RecordSettlement'; settled: PaymentSettled }
  | { type: 'RecordResult'; signed: ResultSigned };

export const PAYMENT_REUSED = 'payment_reused';

/**
 * The payment stream's rules, as a decider: a payment is claimed once, for one request; it is
 * settled only once claimed, and signed only once settled; a step already taken is not taken
 * again (a resumed saga decides nothing new). The saga's steps append what this decides.
 */
export const paymentStreamDecider: Decider<PaymentStreamCommand, PaymentStreamEvent, PaymentProgress> = {
  initialState: {},
  decide(command, state) {
    switch (command.type) {
      case 'ClaimPayment':
        if (!state.authorized) return [{ type: PAYMENT_EVENT_TYPES.authorized, data: command.authorized }];
        if (state.authorized.data.requestHash !== command.authorized.requestHash)
          throw new DomainRefusal(409, PAYMENT_REUSED, 'payment already used for another request');
        return [];
      case 'RecordSettlement':
        if (!state.authorized) throw new DomainRefusal(409, 'not_claimed', 'a payment is settled only after it is claimed');
        return state.settled ? [] : [{ type: PAYMENT_EVENT_TYPES.settled, data: command.settled }];
      case 'RecordResult':
        if (!state.settled) throw new DomainRefusal(409, 'not_settled', 'a result is signed only after its payment is settled');
        return state.signed ? [] : [{ type: PAYMENT_EVENT_TYPES.signed, data: command.signed }];
    }
  },
  evolve(state, event) {
    const revision = event.revision ?? nextRevision(state);
    // Object.assign, not `{ ...state, member }`: the slow path context.ts describes, at every event a fold reads.
    const moved = event.recordedAt === undefined ? undefined : { lastRecordedAt: event.recordedAt };
    switch (event.type) {
      case PAYMENT_EVENT_TYPES.authorized:
        return Object.assign({}, state, moved, { authorized: { data: event.data, revision } });
      case PAYMENT_EVENT_TYPES.settled:
        return Object.assign({}, state, moved, { settled: { data: event.data, revision } });
      case PAYMENT_EVENT_TYPES.signed:
        return Object.assign({}, state, moved, { signed: { data: event.data, revision, ...(event.position === undefined ? {} : { position: event.position }) } });
    }
  },
};

function nextRevision(state: PaymentProgress): bigint {
  const last = state.signed ?? state.settled ?? state.authorized;
  return last ? last.revision + 1n : 0n;
}

/** A stored payment event, parsed at the boundary (zod); events of other types are not the saga's. */
export function parsePaymentEvent(event: RecordedEvent): PaymentStreamEvent | undefined {
  const at = { revision: event.revision, position: event.position, recordedAt: event.recordedAt };
  switch (event.type) {
    case PAYMENT_EVENT_TYPES.authorized:
      return { type: event.type, data: paymentAuthorizedSchema.parse(event.data), ...at };
    case PAYMENT_EVENT_TYPES.settled:
      return { type: event.type, data: paymentSettledSchema.parse(event.data), ...at };
    case PAYMENT_EVENT_TYPES.signed:
      return { type: event.type, data: resultSignedSchema.parse(event.data), ...at };
    default:
      return undefined;
  }
}

export async function readPaymentStream(store: EventStore, stream: string): Promise<PaymentProgress> {
  let progress = paymentStreamDecider.initialState;
  for (const recorded of await store.readStream(stream)) {
    const event = parsePaymentEvent(recorded);
    if (event) progress = paymentStreamDecider.evolve(progress, event);
  }
  return progress;
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
