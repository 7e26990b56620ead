import { appendBytes, checkAppendSize } from '../../events/append-rules.ts';
import { AppendTooLargeError, EventStoreUnavailableError, type EventData, type EventStore } from '../../events/port.ts';
import type { CallContext, PricedOperation } from '../../kernel/operation.ts';
import { runOperation, type SignedResult } from '../../kernel/run-operation.ts';
import { appendClaim, authorizedEvent, claimBeforeFirstAppend, ClaimLostError, settledEvent, signedEvent } from './claim.ts';
import type { PaidCallOutcome, SagaStep } from './context.ts';
import type { PaymentAuthorized, ResultSigned } from './events.ts';
import type { PaymentProgress } from './payment-stream.ts';
import { settledOf, settlementFailure } from './settle.ts';

/**
 * Step 3: run the command with the clock of the first attempt (so a resumed call rebuilds the same
 * record), seal it, and record the result. Anything that stops it now stops after the payment was
 * taken, and the outcome says so.
 */
export async function executeAndSign(step: SagaStep, progress: PaymentProgress, ranBeforeSettling?: SignedResult): Promise<PaidCallOutcome> {
  const authorized = progress.authorized!.data;
  const settled = progress.settled!;
  const ctx = callContext(step, authorized);
  try {
    const result = ranBeforeSettling ?? (await runOperation(step.call.op, step.call.input, ctx));
    const appended = await step.deps.store.appendToStream(step.stream, [signedEvent(step.stream, signedOf(step.call.op, result, ctx.now))], { expectedRevision: settled.revision });
    return { kind: 'signed', body: result.body, settlement: settled.data, sha256: result.seal.sha256, position: appended.position };
  } catch (err) {
    if (err instanceof EventStoreUnavailableError) return { kind: 'unavailable', reason: 'event_store_unavailable', message: err.message, charged: true };
    return { kind: 'failed-after-charge', error: err, transaction: settled.data.transaction };
  }
}

/** Stops a command at its first append: it keeps state, so it runs only once the payment is settled. */
class AppendsState extends Error {}

/**
 * Before settling, on a store that limits appends (EventStoreDB): runs the command to learn
 * whether its result fits in one append, so that a result the store cannot hold is refused
 * before the money moves. A command that appends domain events stops at its first append
 * (refused there if that append alone is too large) and runs again after settlement; any other
 * command's result is kept and signed after settlement, so it runs once, as before.
 */
export async function runBeforeSettling(step: SagaStep, progress: PaymentProgress): Promise<{ refused: PaidCallOutcome } | { ran: SignedResult } | undefined> {
  const limit = step.deps.store.appendLimitBytes;
  if (limit === undefined) return undefined;
  const ctx: CallContext = { ...callContext(step, progress.authorized!.data), store: appendsStopped(step.deps.store) };
  let result: SignedResult;
  try {
    result = await runOperation(step.call.op, step.call.input, ctx);
  } catch (err) {
    if (err instanceof AppendTooLargeError) return { refused: resultTooLarge(err.bytes, err.limit) };
    // State to keep, or a failure the settled call meets again and answers as it always has.
    return undefined;
  }
  const bytes = appendBytes([signedEvent(step.stream, signedOf(step.call.op, result, ctx.now))]);
  return bytes > limit ? { refused: resultTooLarge(bytes, limit) } : { ran: result };
}

function appendsStopped(store: EventStore): EventStore {
  return {
    async appendToStream(stream, events) {
      checkAppendSize(stream, events, store.appendLimitBytes);
      throw new AppendsState();
    },
    readStream: (stream, options) => store.readStream(stream, options),
    readAll: (options) => store.readAll(options),
    subscribeToAll: (options) => store.subscribeToAll(options),
    close: async () => {},
  };
}

/** 413, before anything is charged: the signed result would not fit in one append of the store. */
function resultTooLarge(bytes: number, limit: number): PaidCallOutcome {
  return {
    kind: 'refused',
    refusal: {
      status: 413,
      error: 'result_too_large',
      message: `the signed result of this call would take ${bytes} bytes, and the event store takes at most ${limit} in one append; send a smaller input`,
    },
  };
}

/** The local path's last append, or the refusal when it would not fit (before the claim only: nothing written yet). */
function tooLargeToAppend(store: EventStore, events: readonly EventData[]): PaidCallOutcome | undefined {
  if (store.appendLimitBytes === undefined) return undefined;
  const bytes = appendBytes(events);
  return bytes > store.appendLimitBytes ? resultTooLarge(bytes, store.appendLimitBytes) : undefined;
}

/**
 * The whole call for a settler that moves no money (claim.ts): settle (a pure function), run the
 * command and seal, then claim, settle and sign in one atomic append, or, when the command appends
 * domain events, claim and settle before its first append and sign after it. Undefined when
 * another call holds the claim: the caller resumes from what is stored.
 */
export async function claimSettleAndSign(step: SagaStep, authorized: PaymentAuthorized): Promise<PaidCallOutcome | undefined> {
  let settled;
  try {
    settled = settledOf(await step.settler.settle(step.call.payment));
  } catch (err) {
    return settlementFailure(err);
  }
  const { store } = step.deps;
  const claimEvents = [authorizedEvent(step.stream, authorized), settledEvent(step.stream, settled)];
  const claimingStore = claimBeforeFirstAppend(store, async () => void (await appendClaim(store, step.stream, authorized, claimEvents, step.writesAlone)));
  try {
    const ctx: CallContext = { ...callContext(step, authorized), store: claimingStore };
    const result = await runOperation(step.call.op, step.call.input, ctx);
    const signed = signedEvent(step.stream, signedOf(step.call.op, result, ctx.now));
    let appended;
    if (await claimingStore.claimedYet()) appended = await store.appendToStream(step.stream, [signed], { expectedRevision: BigInt(claimEvents.length - 1) });
    else {
      const events = [...claimEvents, signed];
      const tooLarge = tooLargeToAppend(store, events);
      if (tooLarge) return tooLarge;
      appended = await appendClaim(store, step.stream, authorized, events, step.writesAlone);
    }
    return { kind: 'signed', body: result.body, settlement: settled, sha256: result.seal.sha256, position: appended.position };
  } catch (err) {
    // Lost the claim (before or during the command, which then wrote nothing): not ours to sign.
    if (err instanceof ClaimLostError) return undefined;
    // A command that failed after starting the claim: this call keeps its queue until the
    // claim has settled, so the next call for the stream reads what the claim left.
    const claimed = await claimingStore.claimedYet().catch(() => false);
    if (err instanceof EventStoreUnavailableError) return { kind: 'unavailable', reason: 'event_store_unavailable', message: err.message, charged: claimed };
    // A domain append too large for the store is refused before the claim (claimBeforeFirstAppend).
    if (err instanceof AppendTooLargeError) return claimed ? { kind: 'failed-after-charge', error: err, transaction: settled.transaction } : resultTooLarge(err.bytes, err.limit);
    throw err;
  }
}

function callContext(step: SagaStep, authorized: PaymentAuthorized): CallContext {
  return { ...step.deps, now: authorized.authorizedAt, payer: authorized.payer, paymentId: step.stream };
}

function signedOf(op: PricedOperation, result: SignedResult, signedAt: number): ResultSigned {
  return {
    operation: op.id,
    keyFamily: op.keyFamily!,
    record: result.record,
    sha256: result.seal.sha256,
    ed25519Sig: result.seal.ed25519Sig,
    keyId: result.seal.keyId,
    signedAt,
  };
}
