import type { Command } from '../../kernel/operation.ts';
import { rankRoutes, type TrustedRouteInput } from '../../engines/trust/trusted-route.ts';

/** Stateless: the signed result in the payment stream is the whole history of the call. */
export const trustedRoute: Command<TrustedRouteInput> = {
  async execute(input) {
    return { record: rankRoutes(input) };
  },
};
