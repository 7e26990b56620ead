import type { Command } from '../../kernel/operation.ts';
import { composeReputation, type ReputationInput } from '../../engines/trust/reputation.ts';

/** Stateless: the signed result in the payment stream is the whole history of the call. */
export const agentReputation: Command<ReputationInput> = {
  async execute(input, ctx) {
    return { record: composeReputation(input, ctx.now) };
  },
};
