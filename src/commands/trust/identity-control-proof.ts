import type { Command } from '../../kernel/operation.ts';
import { proveControl, type ControlProofInput } from '../../engines/trust/control-proof.ts';

/** Stateless: the signed result in the payment stream is the whole history of the call. */
export const identityControlProof: Command<ControlProofInput> = {
  async execute(input, ctx) {
    return { record: proveControl(input, ctx.now).record };
  },
};
