import { checkAppendSize } from '../../events/append-rules.ts';
import { withOwnAppend } from '../../events/borrowed-store.ts';
import { eventId } from '../../events/event-ids.ts';
import { WrongExpectedRevisionError, type AppendResult, type EventData, type EventStore } from '../../events/port.ts';
import type { PricedOperation } from '../../kernel/operation.ts';
import { jsonWithMemberText } from '../../kernel/spliced-json.ts';
import type { SignedResult } from '../../kernel/run-operation.ts';
import type { SagaStep } from './context.ts';
import type { JsonObject } from '../../signing/rfc8785.ts';
import { PAYMENT_EVENT_TYPES, type PaymentAuthorized, type PaymentSettled, type ResultSigned } from './events.ts';
import { readPaymentStream, type PaymentProgress } from './payment-stream.ts';

/**
 * Claiming a payment's nonce when settling it moves no money (local settlement). Then nothing
 * irreversible separates the claim from the settlement record, and for a command that appends no
 * domain events nothing separates either from the sealed result: the saga's three events go in
 * ONE atomic append (expected revision "no stream"), durable before the answer. A crash before it
 * leaves nothing (nothing was charged, the payment is still spendable); after it, everything.
 *
 * A command that does append domain events gets a store whose first append claims the payment
 * first (PaymentAuthorized + PaymentSettled, durable), so that no side effect ever happens for a
 * payment another request owns; its ResultSigned follows once it has run, as in the three-step saga.
 */

/** Another request (or another process) holds the claim: the caller resumes from the stored stream. */
export class ClaimLostError extends Error {
  constructor(readonly stream: string) {
    super(`payment stream ${stream} was claimed by another call`);
    this.name = 'ClaimLostError';
  }
}

/**
 * Appends the claim (with whatever follows it atomically) at "no stream" and makes sure what is
 * stored is this call's. Appends are idempotent by event id and the saga's ids depend on the
 * payment only, so an append can "succeed" over another call's events for the same payment
 * (another process on a shared store, another request, another clock): the first event is read
 * back and compared. Throws ClaimLostError when the stream is someone else's.
 *
 * `writesAlone`: whether the caller is the only writer of the stream and saw it absent before
 * appending, with no append of its own to it still in flight; then the read-back is skipped.
 */
export async function appendClaim(store: EventStore, stream: string, authorized: PaymentAuthorized, events: EventData[], writesAlone: () => boolean = () => false): Promise<AppendResult> {
  let appended: AppendResult;
  try {
    appended = await store.appendToStream(stream, events, { expectedRevision: 'no_stream' });
  } catch (err) {
    if (err instanceof WrongExpectedRevisionError) throw new ClaimLostError(stream);
    throw err;
  }
  // Asked after the append: nobody else can have written the stream since the caller saw it
  // absent (events/sole-writer.ts), so the append was ours, not an idempotent match of another's.
  if (writesAlone()) return appended;
  const [first] = await store.readStream(stream, { maxCount: 1 });
  // Our own event, written by this code: two fields decide whose it is, no schema parse needed.
  const stored = first?.type === PAYMENT_EVENT_TYPES.authorized ? (first.data as Partial<PaymentAuthorized> | null) : undefined;
  if (stored?.requestHash !== authorized.requestHash || stored.authorizedAt !== authorized.authorizedAt) throw new ClaimLostError(stream);
  return appended;
}

/**
 * The store a command sees while the payment is not claimed yet: reads pass through, the first
 * append waits for `claim()` (once, shared by concurrent appends) before it goes to the store.
 */
export function claimBeforeFirstAppend(store: EventStore, claim: () => Promise<void>): EventStore & { claimedYet(): Promise<boolean> } {
  let claiming: Promise<void> | undefined;
  const borrowed = withOwnAppend(store, async (stream, events, options) => {
    // An append the store could never hold is refused before the claim: nothing is charged.
    checkAppendSize(stream, events, store.appendLimitBytes);
    claiming ??= claim();
    await claiming;
    return store.appendToStream(stream, events, options);
  });
  return Object.assign(borrowed, {
    /** Whether the command made the claim (waiting for it, should an append still be in flight). */
    async claimedYet() {
      if (!claiming) return false;
      await claiming;
      return true;
    },
  });
}

/** The claim's data: which request this payment pays for, and everything needed to resume it. */
export function authorizedOf(step: SagaStep): PaymentAuthorized {
  const { call, payer } = step;
  const { authorization, requirements, signature, x402Version } = call.payment;
  return {
    requestHash: call.requestHash,
    operation: call.op.id,
    method: call.op.method,
    path: call.op.path,
    payer,
    payTo: requirements.payTo.toLowerCase(),
    amount: requirements.amount,
    network: requirements.network,
    asset: requirements.asset,
    nonce: authorization.nonce.toLowerCase(),
    validBefore: authorization.validBefore,
    x402Version,
    ...(call.paymentIdentifier ? { paymentIdentifier: call.paymentIdentifier } : {}),
    authorization: { ...authorization },
    signature,
    authorizedAt: call.now,
  };
}

export type Claimed = { kind: 'claimed'; progress: PaymentProgress } | { kind: 'lost' };

/**
 * Step 1 of the three-step saga: claim the nonce with PaymentAuthorized at "no stream", durable
 * before any money moves. `lost`: another call or process claimed it first; the caller then treats
 * this call as a retry of that one.
 */
export async function claimPayment(step: SagaStep, authorized: PaymentAuthorized): Promise<Claimed> {
  const { store } = step.deps;
  try {
    await store.appendToStream(step.stream, [authorizedEvent(step.stream, authorized)], { expectedRevision: 'no_stream' });
  } catch (err) {
    if (err instanceof WrongExpectedRevisionError) return { kind: 'lost' };
    throw err;
  }
  // Read back rather than trust our own copy: appends are idempotent by event id, so a claim by
  // another process for this payment (another request, another clock) also "succeeds" here,
  // and what is stored is what every step after this must follow. Unless nobody else writes
  // this store's payment streams: then the queue made the stream ours, and our copy is it.
  if (step.writesAlone()) return { kind: 'claimed', progress: { authorized: { data: authorized, revision: 0n } } };
  return { kind: 'claimed', progress: await readPaymentStream(store, step.stream) };
}

// Deterministic ids (payment stream, type): a replayed append of a step is the same append.
export const authorizedEvent = (stream: string, data: PaymentAuthorized): EventData => ({ id: eventId(stream, PAYMENT_EVENT_TYPES.authorized), type: PAYMENT_EVENT_TYPES.authorized, data });
export const settledEvent = (stream: string, data: PaymentSettled): EventData => ({ id: eventId(stream, PAYMENT_EVENT_TYPES.settled), type: PAYMENT_EVENT_TYPES.settled, data });
/** `recordJson`: JSON.stringify(data.record) as UTF-8, made already: the event's text is assembled around it (EventData.dataJson). */
export function signedEvent(stream: string, data: ResultSigned, recordJson?: Uint8Array): EventData {
  const id = eventId(stream, PAYMENT_EVENT_TYPES.signed);
  const type = PAYMENT_EVENT_TYPES.signed;
  return recordJson ? { id, type, data, dataJson: jsonWithMemberText(data, 'record', recordJson) } : { id, type, data };
}

/** The ResultSigned event's data for a sealed result. */
/** `signedAt`: the call's clock, or for a stored record answered again, when it was first signed (its key's time). */
export function signedOf(op: PricedOperation, result: SignedResult, signedAt: number): ResultSigned {
  return {
    operation: op.id,
    keyFamily: op.keyFamily!,
    // Read when something reads it: a record that came as text is stored from its text (signedEvent).
    get record(): JsonObject {
      return result.record;
    },
    sha256: result.seal.sha256,
    ed25519Sig: result.seal.ed25519Sig,
    keyId: result.seal.keyId,
    signedAt: result.firstSignedAt ?? signedAt,
  };
}
