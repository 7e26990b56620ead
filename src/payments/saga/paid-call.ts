import { isSoleWriter } from '../../events/sole-writer.ts';
import type { ServiceDeps } from '../../kernel/operation.ts';
import type { Settler } from '../settlers/settler.ts';
import { PAYMENT_REASONS, PaymentRejected } from '../x402/reasons.ts';
import { checkTimeWindow } from '../x402/verify-payment.ts';
import { authorizedOf, claimPayment } from './claim.ts';
import { commandContext, type PaidCall, type PaidCallOutcome, type SagaStep } from './context.ts';
import { paymentStreamName } from './events.ts';
import { runBeforeSettling } from './append-limit.ts';
import { claimSettleAndSign, executeAndSign } from './execute-and-sign.ts';
import { BoundedRecentSet, KeyedQueue } from './keyed-queue.ts';
import { bindPaymentIdentifier, checkPaymentIdentifier, type PaymentIdentifierClaim } from './payment-identifier.ts';
import { readPaymentStream, waitWhileInFlight, type PaymentProgress } from './payment-stream.ts';
import { replayResult } from './replay.ts';
import { settlementFailure, settlePayment } from './settle.ts';

export type { PaidCall, PaidCallOutcome } from './context.ts';

const MAX_REMEMBERED_STREAMS = 10_000;

export interface PaidCallSaga {
  run(call: PaidCall, deps: ServiceDeps): Promise<PaidCallOutcome>;
}

/**
 * The paid-call saga (docs/architecture.md, a paid call), in the payment's own stream:
 * PaymentAuthorized (claim) -> PaymentSettled (settle) -> ResultSigned (execute and sign), or
 * the stored result (replay). Whatever point a call stopped at, the same payment with the same
 * request resumes from there; the stored progress is looked up before anything else, so a paid
 * payment is finished or replayed even after its authorization's time window closed.
 *
 * Calls carrying one payment are serialised inside this process (a queue per payment stream),
 * so concurrent duplicates wait for the first and then replay its result; across processes the
 * atomic claim decides, and the loser waits for the winner's progress (payment-stream.ts).
 */
export function createPaidCallSaga(settler: Settler): PaidCallSaga {
  const queue = new KeyedQueue();
  /** Paid calls on one domain stream (Command.stateStream), one at a time in this process. */
  const stateQueue = new KeyedQueue();
  /** Streams this process left unfinished: nobody else is presumed to be moving them forward. */
  const ownedHere = new BoundedRecentSet(MAX_REMEMBERED_STREAMS);
  /** This saga's identity as a writer of payment streams (events/sole-writer.ts). */
  const owner = {};

  async function run(call: PaidCall, deps: ServiceDeps): Promise<PaidCallOutcome> {
    // Asked before anything is written, so that a second saga on the same store is known before
    // its first append and the read-back of claims comes back for both.
    isSoleWriter(deps.store, owner);
    const payer = call.payment.authorization.from.toLowerCase();
    const step: SagaStep = { deps, settler, call, payer, stream: paymentStreamName(payer, call.payment.authorization.nonce), writesAlone: () => isSoleWriter(deps.store, owner) };

    let identifier: PaymentIdentifierClaim | undefined;
    if (call.paymentIdentifier) {
      const checked = await checkPaymentIdentifier(deps.store, payer, call.paymentIdentifier, step.stream, call);
      if (checked.kind === 'conflict') return { kind: 'identifier-conflict', message: checked.message };
      identifier = checked.claim;
    }

    const stateStream = call.op.command?.stateStream?.(call.input, payer);
    return queue.run(step.stream, () => (stateStream === undefined ? advance(step, identifier) : stateQueue.run(stateStream, () => advance(step, identifier))));
  }

  /** Starts the payment, resumes it or replays its result, from what its stream holds. */
  async function advance(step: SagaStep, identifier: PaymentIdentifierClaim | undefined): Promise<PaidCallOutcome> {
    const outcome = await startOrResume(step, identifier);
    // Only a call this process left unfinished is worth remembering: its retry need not wait for
    // another process to move it on. A finished stream needs no waiting.
    if (outcome.kind === 'unavailable' || outcome.kind === 'failed-after-charge' || outcome.kind === 'refused-after-charge') ownedHere.add(step.stream);
    else ownedHere.delete(step.stream);
    return outcome;
  }

  async function startOrResume(step: SagaStep, identifier: PaymentIdentifierClaim | undefined): Promise<PaidCallOutcome> {
    const { store } = step.deps;
    let progress = await readPaymentStream(store, step.stream);
    if (!progress.authorized) {
      const started = await startNewPayment(step, identifier);
      if (started.kind === 'answered') return started.outcome;
      progress = started.progress;
    } else if (!ownedHere.has(step.stream)) {
      progress = await waitWhileInFlight(store, step.stream, progress);
    }
    return resume(step, progress);
  }

  type Started = { kind: 'claimed'; progress: PaymentProgress } | { kind: 'answered'; outcome: PaidCallOutcome };

  /** A payment seen for the first time: its time window, the command's authorization, the settler's check, then the claim. */
  async function startNewPayment(step: SagaStep, identifier: PaymentIdentifierClaim | undefined): Promise<Started> {
    const answered = (outcome: PaidCallOutcome): Started => ({ kind: 'answered', outcome });
    const { call, deps } = step;
    try {
      checkTimeWindow(call.payment.authorization, call.now);
    } catch (err) {
      if (err instanceof PaymentRejected) return answered({ kind: 'rejected', reason: err.reason, message: err.message });
      throw err;
    }
    const authorize = call.op.command?.authorize;
    // Before the claim: a refusal leaves no trace, so the payer can spend the same signed
    // authorization on a request it is entitled to make.
    const refusal = authorize ? await authorize(call.input, commandContext(deps, { now: call.now, payer: step.payer, paymentId: step.stream })) : undefined;
    if (refusal) return answered({ kind: 'refused', refusal });
    try {
      await settler.verify(call.payment);
    } catch (err) {
      return answered(settlementFailure(err));
    }
    if (identifier) {
      const bound = await bindPaymentIdentifier(deps.store, identifier);
      if (bound.kind === 'conflict') return answered({ kind: 'identifier-conflict', message: bound.message });
    }
    const authorized = authorizedOf(step);
    if (settler.movesFunds === false) {
      const outcome = await claimSettleAndSign(step, authorized);
      return outcome ? answered(outcome) : { kind: 'claimed', progress: await claimedElsewhere(step) };
    }
    const claimed = await claimPayment(step, authorized);
    // Another process claimed it first: from here on this is a retry of its call.
    return claimed.kind === 'claimed' ? claimed : { kind: 'claimed', progress: await claimedElsewhere(step) };
  }

  async function claimedElsewhere(step: SagaStep): Promise<PaymentProgress> {
    const seen = await readPaymentStream(step.deps.store, step.stream);
    return waitWhileInFlight(step.deps.store, step.stream, seen, { justClaimedElsewhere: true });
  }

  return { run };
}

/** Settle if not settled, execute and sign if not signed, or replay the stored result. */
async function resume(step: SagaStep, progress: PaymentProgress): Promise<PaidCallOutcome> {
  if (progress.authorized!.data.requestHash !== step.call.requestHash)
    return { kind: 'rejected', reason: PAYMENT_REASONS.nonceUsed, message: 'payment already used for another request' };
  // On a store that limits appends, a result it cannot hold is refused before the money moves,
  // and so is what stops an engine thread (its heap, its time limit), unless an earlier attempt
  // moved the money already (a crash between the transfer and its record).
  const early = progress.settled ? undefined : await runBeforeSettling(step, progress);
  if (early && 'refused' in early && (await nothingMovedYet(step))) return early.refused;
  const settled = await settlePayment(step, progress);
  if (settled.kind === 'stopped') return settled.outcome;
  if (settled.progress.signed) return replayResult(step, settled.progress);
  return executeAndSign(step, settled.progress, early && 'ran' in early ? early.ran : undefined);
}

/** Whether the settler knows of no transfer for this payment; false when it cannot tell. */
async function nothingMovedYet(step: SagaStep): Promise<boolean> {
  try {
    return (await step.settler.findSettled(step.call.payment)) === undefined;
  } catch {
    return false;
  }
}
