import type { Command } from '../../../kernel/operation.ts';
import { assessReputation, type ReputationInput } from './engine.ts';

/** Stateless: the observations are supplied; ours are verified with the governance keys of every generation. */
export const bureauReputationCommand: Command<ReputationInput> = {
  async execute(input, ctx) {
    return { record: assessReputation(input, { now: ctx.now, bureauKeys: ctx.keyring.history().filter((k) => k.family === 'governance') }) };
  },
};
