import type { Command } from '../../kernel/operation.ts';
import { checkOfferOrReceipt, type ReceiptCheckInput } from '../../engines/governance/receipt-check.ts';
import { assessReputation, type ReputationInput } from '../../engines/governance/reputation.ts';

/** Stateless: the signed result in the payment stream is the whole history of the call. */
export const bureauReceiptCheck: Command<ReceiptCheckInput> = {
  async execute(input, ctx) {
    return { record: checkOfferOrReceipt(input, { now: ctx.now }) };
  },
};

/** Stateless too: the observations are supplied; our own are verified with the governance key. */
export const bureauReputation: Command<ReputationInput> = {
  async execute(input, ctx) {
    return { record: assessReputation(input, { now: ctx.now, bureauPublicKey: ctx.keyring.publicKey('governance').publicKeyHex }) };
  },
};
