import { presentSignedResult } from '../../kernel/run-operation.ts';
import type { PaidCallOutcome, SagaStep } from './context.ts';
import type { PaymentProgress } from './payment-stream.ts';

/** Step 4, for a payment whose result is stored: the same answer, byte for byte, charged once. */
export function replayResult(step: SagaStep, progress: PaymentProgress): PaidCallOutcome {
  const stored = progress.signed!.data;
  const body = presentSignedResult(step.call.op, stored.record, stored, step.deps.baseUrl);
  return { kind: 'signed', body, settlement: progress.settled!.data };
}
