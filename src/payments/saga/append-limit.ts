// The event store's limit on one append (EventStoreDB's MaxAppendSize, docs/event-store.md),
// met before the money moves: a signed result the store could not hold is refused, 413, with
// nothing charged, instead of failing after settlement on every retry. The same run before
// settling answers what stops an engine thread, on any store.
import { bytesOverLimit } from '../../events/append-rules.ts';
import { withStagedAppends } from '../../events/staged-store.ts';
import { AppendTooLargeError, type EventData, type EventStore } from '../../events/port.ts';
import { DomainRefusal } from '../../kernel/decider.ts';
import { runOperation, type SignedResult } from '../../kernel/run-operation.ts';
import { UnavailableNowError } from '../../kernel/unavailable.ts';
import { signedEvent, signedOf } from './claim.ts';
import { callContext, unavailableNow, type PaidCallOutcome, type SagaStep } from './context.ts';
import type { PaymentProgress } from './payment-stream.ts';

/**
 * Before settling, on a store that limits appends (EventStoreDB): runs the command to learn
 * whether its result fits in one append, so that a result the store cannot hold is refused
 * before the money moves. A command that appends domain events runs on a store that holds them
 * back (events/staged-store.ts): refused if one of its appends or its signed result would not
 * fit, and otherwise run again after settlement, for real. Any other command's result is kept
 * and signed after settlement, so it runs once, as before.
 *
 * On any store, a command whose engine runs on an engine thread is run here too: its input may
 * outgrow the thread's heap (422) or its time limit (503 engine_timeout), and either is answered
 * while nothing has moved, so a payer is never charged for a result it cannot get.
 */
export async function runBeforeSettling(step: SagaStep, progress: PaymentProgress): Promise<{ refused: PaidCallOutcome } | { ran: SignedResult } | undefined> {
  if (step.deps.store.appendLimitBytes === undefined && !step.call.op.command?.runsOnEngineThread) return undefined;
  const staged = withStagedAppends(step.deps.store);
  const ctx = callContext(step, progress.authorized!.data, staged);
  let result: SignedResult;
  try {
    result = await runOperation(step.call.op, step.call.input, ctx, step.call.handoff);
  } catch (err) {
    if (err instanceof AppendTooLargeError) return { refused: resultTooLarge(err.bytes, err.limit) };
    // Decided on the state as it is now (another process changed it since authorize): refused
    // while nothing has moved, rather than after the transfer.
    if (err instanceof DomainRefusal) return { refused: { kind: 'refused', refusal: err.asRefusal() } };
    // Not now (an engine past its time limit): answered while nothing has moved, to retry.
    if (err instanceof UnavailableNowError) return { refused: unavailableNow(err, false) };
    // A failure the settled call meets again and answers as it always has.
    return undefined;
  }
  // Only a store that limits appends needs the event weighed: building it copies a large record's text.
  const tooLarge = step.deps.store.appendLimitBytes === undefined ? undefined : tooLargeToAppend(step.deps.store, [signedEvent(step.stream, signedOf(step.call.op, result, ctx.now), result.recordJson)]);
  if (tooLarge) return { refused: tooLarge };
  return staged.stagedEvents > 0 ? undefined : { ran: result };
}

/** 413, before anything is charged: the signed result would not fit in one append of the store. */
export function resultTooLarge(bytes: number, limit: number): PaidCallOutcome {
  return {
    kind: 'refused',
    refusal: {
      status: 413,
      error: 'result_too_large',
      message: `the signed result of this call would take ${bytes} bytes, and the event store takes at most ${limit} in one append; send a smaller input`,
    },
  };
}

/** The refusal when these events would not fit in one append of the store, before anything of them is written. */
export function tooLargeToAppend(store: EventStore, events: readonly EventData[]): PaidCallOutcome | undefined {
  const bytes = bytesOverLimit(events, store.appendLimitBytes);
  return bytes === undefined ? undefined : resultTooLarge(bytes, store.appendLimitBytes!);
}
