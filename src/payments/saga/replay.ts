import { EventStoreUnavailableError } from '../../events/port.ts';
import { presentSignedResult, runOperation } from '../../kernel/run-operation.ts';
import { UnavailableNowError } from '../../kernel/unavailable.ts';
import { callContext, unavailableNow, type PaidCallOutcome, type SagaStep } from './context.ts';
import { signedOutcome } from './execute-and-sign.ts';
import type { PaymentProgress } from './payment-stream.ts';

/**
 * Step 4, for a payment whose result is stored: the same answer, byte for byte, charged once.
 * Outputs answered beside the record are not stored: the command runs again with the first
 * attempt's clock, and its record must be the stored one.
 */
export async function replayResult(step: SagaStep, progress: PaymentProgress): Promise<PaidCallOutcome> {
  const stored = progress.signed!.data;
  const settlement = progress.settled!.data;
  const { op } = step.call;
  // Where the stored result sits in the log: its leaf in the result log, the same as the first answer's.
  const at = progress.signed!.position === undefined ? {} : { position: progress.signed!.position };
  if (!op.outputBeside) return { kind: 'signed', body: presentSignedResult(op, stored.record, stored, step.deps.baseUrl), settlement, sha256: stored.sha256, ...at };
  const authorized = progress.authorized!.data;
  let rebuilt;
  try {
    rebuilt = await runOperation(op, step.call.input, callContext(step, authorized), step.call.handoff);
  } catch (err) {
    // The call was paid and its record is stored: whatever stops the rebuild now (an engine
    // thread's heap set lower since, a store that is down, an engine past its time limit) is
    // answered as a charged call to retry, never as a refusal that reads as free.
    if (err instanceof EventStoreUnavailableError) return { kind: 'unavailable', reason: 'event_store_unavailable', message: err.message, charged: true };
    if (err instanceof UnavailableNowError) return unavailableNow(err, true);
    return { kind: 'failed-after-charge', error: err, transaction: settlement.transaction };
  }
  if (rebuilt.seal.sha256 !== stored.sha256) return { kind: 'failed-after-charge', error: new Error(`${op.id} did not rebuild its stored record ${stored.sha256}`), transaction: settlement.transaction };
  return signedOutcome(rebuilt, settlement, progress.signed!.position);
}
