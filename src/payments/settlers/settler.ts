import type { PaymentRequirements } from '@x402/core/types';

/** The EIP-3009 TransferWithAuthorization message, as signed by the payer. */
export interface TransferAuthorization {
  from: `0x${string}`;
  to: `0x${string}`;
  /** Atomic units, decimal string. */
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: `0x${string}`;
}

/** A payment that passed our own verification, ready to settle. */
export interface VerifiedPayment {
  x402Version: 1 | 2;
  requirements: PaymentRequirements;
  authorization: TransferAuthorization;
  signature: `0x${string}`;
  /** The decoded payload exactly as the client sent it (facilitators want it verbatim). */
  rawPayload: Record<string, unknown>;
}

export interface Settlement {
  mode: 'local' | 'facilitator' | 'onchain';
  /** Transaction hash on chain; for local settlement a deterministic pseudo-hash, never a real one. */
  transaction: string;
  network: string;
  payer: string;
  amount: string;
  demo: boolean;
}

/** Settlement failed; the reason uses the x402 error names where one exists. */
export class SettlementError extends Error {
  constructor(
    readonly reason: string,
    message: string,
    /** true when retrying later may succeed (RPC down, facilitator timeout). */
    readonly transient = false,
  ) {
    super(message);
    this.name = 'SettlementError';
  }
}

export interface Settler {
  readonly mode: Settlement['mode'];
  /**
   * false when settling moves no money and is a pure function of the payment (local mode): the
   * saga may then record the claim, the settlement and the result in one atomic append
   * (payments/saga/claim.ts). Absent means true, so that any other settler, or a wrapper
   * around one, keeps the three-step saga with every step durable before the next.
   */
  readonly movesFunds?: boolean;
  /** Checks the settler can still move the funds (facilitator /verify, on-chain balance and nonce state). */
  verify(payment: VerifiedPayment): Promise<void>;
  /** Moves the funds (or, locally, records that it would). Throws SettlementError. */
  settle(payment: VerifiedPayment): Promise<Settlement>;
  /**
   * After a crash between claiming the nonce and recording the settlement: whether the transfer
   * already happened (on chain: `authorizationState`), so that it is never attempted twice.
   */
  findSettled(payment: VerifiedPayment): Promise<Settlement | undefined>;
}
