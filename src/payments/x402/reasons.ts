/**
 * Why a payment was refused. The x402 names are used wherever the protocol (or @x402/evm's exact
 * facilitator) has one, so that a client written against any x402 server understands them; the
 * few without an x402 name follow the same pattern.
 */
export const PAYMENT_REASONS = {
  /** The header is not standard base64. */
  payloadEncoding: 'invalid_payload_encoding',
  /** The base64 decodes, but not to JSON. */
  payloadJson: 'invalid_payload_json',
  /** JSON, but not an x402 exact EVM payment payload. */
  payload: 'invalid_payload',
  version: 'invalid_x402_version',
  scheme: 'invalid_scheme',
  network: 'invalid_network',
  asset: 'invalid_exact_evm_asset_mismatch',
  /** `accepted` differs from the route's current quote in a member not named above. */
  requirements: 'invalid_payment_requirements',
  signature: 'invalid_exact_evm_signature',
  recipient: 'invalid_exact_evm_recipient_mismatch',
  value: 'invalid_exact_evm_payload_authorization_value_mismatch',
  validBefore: 'invalid_exact_evm_payload_authorization_valid_before',
  validAfter: 'invalid_exact_evm_payload_authorization_valid_after',
  nonceUsed: 'invalid_exact_evm_nonce_already_used',
  settle: 'unexpected_settle_error',
  /** A payment sent with HEAD, a safe method: quoted like GET, never taken. */
  headIsNotPaid: 'invalid_method_head_is_never_paid',
} as const;

export type PaymentReason = (typeof PAYMENT_REASONS)[keyof typeof PAYMENT_REASONS];

/** A payment that cannot be accepted: answered 402 with the reason, and nothing is charged. */
export class PaymentRejected extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'PaymentRejected';
  }
}
