import { AppendTooLargeError, EventStoreUnavailableError } from '../../events/port.ts';
import { DomainRefusal } from '../../kernel/decider.ts';
import { runOperation, type SignedResult } from '../../kernel/run-operation.ts';
import { UnavailableNowError } from '../../kernel/unavailable.ts';
import { resultTooLarge, tooLargeToAppend } from './append-limit.ts';
import { appendClaim, authorizedEvent, claimBeforeFirstAppend, ClaimLostError, settledEvent, signedEvent, signedOf } from './claim.ts';
import { callContext, unavailableNow, type PaidCallOutcome, type SagaStep } from './context.ts';
import type { PaymentAuthorized, PaymentSettled } from './events.ts';
import type { PaymentProgress } from './payment-stream.ts';
import type { JsonObject } from '../../signing/rfc8785.ts';
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
    const result = ranBeforeSettling ?? (await runOperation(step.call.op, step.call.input, ctx, step.call.handoff));
    const appended = await step.deps.store.appendToStream(step.stream, [signedEvent(step.stream, signedOf(step.call.op, result, ctx.now), result.recordJson)], { expectedRevision: settled.revision });
    return signedOutcome(result, settled.data, appended.position);
  } catch (err) {
    if (err instanceof EventStoreUnavailableError) return { kind: 'unavailable', reason: 'event_store_unavailable', message: err.message, charged: true };
    if (err instanceof UnavailableNowError) return unavailableNow(err, true);
    if (err instanceof DomainRefusal) return { kind: 'refused-after-charge', refusal: err.asRefusal(), transaction: settled.data.transaction };
    return { kind: 'failed-after-charge', error: err, transaction: settled.data.transaction };
  }
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
    const ctx = callContext(step, authorized, claimingStore);
    const result = await runOperation(step.call.op, step.call.input, ctx, step.call.handoff);
    const signed = signedEvent(step.stream, signedOf(step.call.op, result, ctx.now), result.recordJson);
    let appended;
    if (await claimingStore.claimedYet()) appended = await store.appendToStream(step.stream, [signed], { expectedRevision: BigInt(claimEvents.length - 1) });
    else {
      const events = [...claimEvents, signed];
      const tooLarge = tooLargeToAppend(store, events);
      if (tooLarge) return tooLarge;
      appended = await appendClaim(store, step.stream, authorized, events, step.writesAlone);
    }
    return signedOutcome(result, settled, appended.position);
  } catch (err) {
    // Lost the claim (before or during the command, which then wrote nothing): not ours to sign.
    if (err instanceof ClaimLostError) return undefined;
    // A command that failed after starting the claim: this call keeps its queue until the
    // claim has settled, so the next call for the stream reads what the claim left.
    const claimed = await claimingStore.claimedYet().catch(() => false);
    if (err instanceof EventStoreUnavailableError) return { kind: 'unavailable', reason: 'event_store_unavailable', message: err.message, charged: claimed };
    // Nothing is signed; unless the command appended (which claimed the payment), nothing is
    // stored either, and the same payment can be sent again.
    if (err instanceof UnavailableNowError) return unavailableNow(err, claimed);
    // A domain append too large for the store is refused before the claim (claimBeforeFirstAppend).
    if (err instanceof AppendTooLargeError) return claimed ? { kind: 'failed-after-charge', error: err, transaction: settled.transaction } : resultTooLarge(err.bytes, err.limit);
    // Decided before the command's first append, the claim with it: nothing was taken.
    if (err instanceof DomainRefusal) return claimed ? { kind: 'refused-after-charge', refusal: err.asRefusal(), transaction: settled.transaction } : { kind: 'refused', refusal: err.asRefusal() };
    throw err;
  }
}

/**
 * The outcome of a signed result. Its body is read only when asked for: a record that came as
 * text is answered from its text (bodyJson), and its body object is then never made.
 */
export function signedOutcome(result: SignedResult, settlement: PaymentSettled, position: bigint | undefined): PaidCallOutcome {
  return {
    kind: 'signed',
    get body(): JsonObject {
      return result.body;
    },
    ...(result.bodyJson ? { bodyJson: result.bodyJson } : {}),
    settlement,
    sha256: result.seal.sha256,
    ...(position === undefined ? {} : { position }),
  };
}
