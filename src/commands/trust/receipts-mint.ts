import type { Command } from '../../kernel/operation.ts';
import { mintReceipt, type MintReceiptInput } from '../../engines/trust/receipt.ts';

/** Stateless: the signed result in the payment stream is the whole history of the call. */
export const receiptsMint: Command<MintReceiptInput> = {
  async execute(input, ctx) {
    return { record: mintReceipt(input, ctx.now) };
  },
};
