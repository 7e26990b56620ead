import type { Command } from '../../kernel/operation.ts';
import { buildSignedSnapshot, type SignedSnapshotInput } from '../../engines/forensics/signed-snapshot.ts';

/** Stateless: the signed result in the payment stream is the whole history of the call. */
export const signedSnapshot: Command<SignedSnapshotInput> = {
  async execute(input, ctx) {
    return { record: buildSignedSnapshot(input, ctx.now) };
  },
};
