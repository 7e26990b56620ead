import type { Command } from '../../kernel/operation.ts';
import { attestClaim, type AttestClaimInput } from '../../engines/trust/veritrack.ts';

/** Stateless: the signed result in the payment stream is the whole history of the call. */
export const veritrackAttest: Command<AttestClaimInput> = {
  async execute(input, ctx) {
    return { record: attestClaim(input, ctx.now) };
  },
};
