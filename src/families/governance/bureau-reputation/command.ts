import type { Command } from '../../../kernel/operation.ts';
import { assessReputation, type ReputationInput } from './engine.ts';

/** Stateless: the observations are supplied; our own are verified with the governance key. */
export const bureauReputationCommand: Command<ReputationInput> = {
  async execute(input, ctx) {
    return { record: assessReputation(input, { now: ctx.now, bureauPublicKey: ctx.keyring.publicKey('governance').publicKeyHex }) };
  },
};
