import { sha256Hex } from '../../signing/hash.ts';
import type { Settlement, Settler, VerifiedPayment } from './settler.ts';

/** Marks a local settlement's transaction so that nobody can mistake it for a chain transaction. */
export const LOCAL_TRANSACTION_PREFIX = 'local-demo:';

/**
 * Local settlement, the default of `npm start`: the payment has passed full cryptographic
 * verification, but no funds move. The settlement is recorded with `demo: true`, which keeps it
 * out of revenue and public stats. Settling is a pure function of the authorization, so settling
 * again after a crash gives the same answer and there is nothing to find.
 */
export function createLocalSettler(): Settler {
  return {
    mode: 'local',
    movesFunds: false,
    async verify() {},
    async settle(payment: VerifiedPayment): Promise<Settlement> {
      return localSettlement(payment);
    },
    async findSettled() {
      return undefined;
    },
  };
}

export function localSettlement(payment: VerifiedPayment): Settlement {
  const { authorization, requirements } = payment;
  const pseudoHash = sha256Hex(
    Buffer.from(`x402-local-settlement\u0000${requirements.network}\u0000${requirements.asset.toLowerCase()}\u0000${authorization.from.toLowerCase()}\u0000${authorization.nonce.toLowerCase()}`),
  );
  return {
    mode: 'local',
    transaction: `${LOCAL_TRANSACTION_PREFIX}${pseudoHash}`,
    network: requirements.network,
    payer: authorization.from.toLowerCase(),
    amount: authorization.value,
    demo: true,
  };
}
