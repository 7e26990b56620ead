import { EventStoreUnavailableError } from '../../events/port.ts';
import { SettlementError, type Settlement } from '../settlers/settler.ts';
import { checkTimeWindow } from '../x402/verify-payment.ts';
import { PaymentRejected } from '../x402/reasons.ts';
import { settledEvent } from './claim.ts';
import type { PaidCallOutcome, SagaStep } from './context.ts';
import type { PaymentSettled } from './events.ts';
import { paymentStreamDecider, type PaymentProgress } from './payment-stream.ts';

export type Settled = { kind: 'settled'; progress: PaymentProgress } | { kind: 'stopped'; outcome: PaidCallOutcome };

/**
 * Step 2: move the funds once, and record it. A transfer that already happened (a crash between
 * the transfer and its record) is found, not attempted again; an authorization that has not moved
 * money yet must still be inside its time window.
 */
export async function settlePayment(step: SagaStep, progress: PaymentProgress): Promise<Settled> {
  if (progress.settled) return { kind: 'settled', progress };
  let settlement: Settlement;
  try {
    settlement = (await step.settler.findSettled(step.call.payment)) ?? (await settleWithinWindow(step));
  } catch (err) {
    return { kind: 'stopped', outcome: settlementFailure(err) };
  }
  const settled = settledOf(settlement);
  const [event] = paymentStreamDecider.decide({ type: 'RecordSettlement', settled }, progress);
  if (!event) return { kind: 'settled', progress };
  try {
    const appended = await step.deps.store.appendToStream(step.stream, [settledEvent(step.stream, settled)], { expectedRevision: progress.authorized!.revision });
    return { kind: 'settled', progress: paymentStreamDecider.evolve(progress, Object.assign({}, event, { revision: appended.nextExpectedRevision })) };
  } catch (err) {
    if (!(err instanceof EventStoreUnavailableError)) throw err;
    // The money moved (or, locally, would have): a retry finds the transfer and records it.
    return { kind: 'stopped', outcome: { kind: 'unavailable', reason: 'event_store_unavailable', message: err.message, charged: step.settler.movesFunds !== false } };
  }
}

async function settleWithinWindow(step: SagaStep): Promise<Settlement> {
  checkTimeWindow(step.call.payment.authorization, step.call.now);
  return step.settler.settle(step.call.payment);
}

/** A settlement that could not happen: nothing was charged. */
export function settlementFailure(err: unknown): PaidCallOutcome {
  if (err instanceof PaymentRejected) return { kind: 'rejected', reason: err.reason, message: err.message };
  if (err instanceof SettlementError)
    return err.transient
      ? { kind: 'unavailable', reason: err.reason, message: err.message, charged: false }
      : { kind: 'rejected', reason: err.reason, message: err.message };
  throw err;
}

export function settledOf(settlement: Settlement): PaymentSettled {
  return {
    mode: settlement.mode,
    transaction: settlement.transaction,
    network: settlement.network,
    payer: settlement.payer.toLowerCase(),
    amount: settlement.amount,
    demo: settlement.demo,
  };
}
