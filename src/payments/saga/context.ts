import type { EventStore } from '../../events/port.ts';
import type { CallContext, PricedOperation, Refusal, ServiceDeps } from '../../kernel/operation.ts';
import type { UnavailableNowError } from '../../kernel/unavailable.ts';
import type { JsonObject } from '../../signing/rfc8785.ts';
import type { Settler, VerifiedPayment } from '../settlers/settler.ts';
import type { PaymentAuthorized, PaymentSettled } from './events.ts';

/** One verified paid request, as the gateway hands it to the saga. */
export interface PaidCall {
  op: PricedOperation;
  input: unknown;
  /** What the precheck of this very request handed the command (PaidCallRequest); never stored. */
  handoff?: unknown;
  requestHash: string;
  payment: VerifiedPayment;
  /** Unix seconds, stamped once by the gateway. */
  now: number;
  paymentIdentifier?: string;
}

export type PaidCallOutcome =
  /**
   * `sha256`: the signed record's digest, its key in the result log; `position`: where its
   * ResultSigned event sits in the log (absent when the store did not say); `bodyJson`:
   * JSON.stringify(body) as UTF-8 when it was made already (SignedResult.bodyJson).
   */
  | { kind: 'signed'; body: JsonObject; bodyJson?: Uint8Array; settlement: PaymentSettled; sha256: string; position?: bigint }
  /** command.authorize refused, or the command before its first append: nothing claimed, nothing charged. */
  | { kind: 'refused'; refusal: Refusal }
  /**
   * The command refused after the payment was taken: the state changed between `authorize` and
   * the command (another process on the same store). Deterministic: a retry answers the same.
   */
  | { kind: 'refused-after-charge'; refusal: Refusal; transaction: string }
  /** 402: the payment cannot pay for this request. */
  | { kind: 'rejected'; reason: string; message: string }
  /** 409: the payment identifier was first used with another payload. */
  | { kind: 'identifier-conflict'; message: string }
  /**
   * 503: the call cannot complete now (settlement or the event store unavailable, an engine past
   * its time limit: kernel/unavailable.ts). `charged`: a settlement is durable, so the payment
   * was taken and a retry with it completes the call.
   */
  | { kind: 'unavailable'; reason: string; message: string; charged: boolean }
  /** The command failed after the payment was settled: the payment was taken; a retry resumes the call. */
  | { kind: 'failed-after-charge'; error: unknown; transaction: string };

/** The command could not finish now: 503, and a retry with the same payment may complete the call. `charged`: a settlement is durable. */
export function unavailableNow(err: UnavailableNowError, charged: boolean): PaidCallOutcome {
  return { kind: 'unavailable', reason: err.reason, message: err.message, charged };
}

/** What every step of one paid call works with. */
export interface SagaStep {
  deps: ServiceDeps;
  settler: Settler;
  call: PaidCall;
  /** The payment's stream, `payment-<payer>-<nonce>`. */
  stream: string;
  /** The EIP-3009 `from`, lowercase. */
  payer: string;
  /** Whether this saga is the only writer of the store's payment streams (events/sole-writer.ts). */
  writesAlone(): boolean;
}

/**
 * What a command sees: the service (with `store` in place of its own, for a claiming or staging
 * store) and the call's clock, payer and payment stream. Object.assign and not `{ ...deps, now,
 * ... }`: on Node 20 every member added to an object that a leading spread made (in the same
 * literal or later) takes V8's slow path, about 1 us each (test/architecture.test.ts), and every
 * paid call makes one of these.
 */
export function commandContext(deps: ServiceDeps, call: { now: number; payer: string; paymentId: string }, store: EventStore = deps.store): CallContext {
  return Object.assign({}, deps, { store, now: call.now, payer: call.payer, paymentId: call.paymentId });
}

/** What the command of a paid call sees: the clock of the first attempt, the payer and the payment's stream. */
export function callContext(step: SagaStep, authorized: PaymentAuthorized, store?: EventStore): CallContext {
  return commandContext(step.deps, { now: authorized.authorizedAt, payer: authorized.payer, paymentId: step.stream }, store);
}
