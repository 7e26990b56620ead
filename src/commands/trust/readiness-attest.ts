import type { Command } from '../../kernel/operation.ts';
import { attestReadiness, type ReadinessInput } from '../../engines/trust/readiness.ts';

/** Stateless: the signed result in the payment stream is the whole history of the call. */
export const readinessAttest: Command<ReadinessInput> = {
  async execute(input, ctx) {
    return { record: attestReadiness(input, ctx.now) };
  },
};
