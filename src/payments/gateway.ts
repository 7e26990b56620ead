import type { PricedOperation, ServiceDeps } from '../catalog/types.ts';
import type { JsonValue } from '../signing/canonical.ts';

/** A priced request whose input validated and that carries a payment header. */
export interface PaidCallRequest {
  op: PricedOperation;
  input: unknown;
  /** SHA-256 of the canonical {method, path, input}: binds a payment to one request. */
  requestHash: string;
  payment: { header: 'PAYMENT-SIGNATURE' | 'X-PAYMENT'; value: string };
}

export interface HttpAnswer {
  status: number;
  body: JsonValue;
  headers: Record<string, string>;
}

/** Verifies the payment, runs the paid-call saga and answers; the HTTP layer only relays. */
export interface PaymentGateway {
  handle(request: PaidCallRequest, deps: ServiceDeps): Promise<HttpAnswer>;
}
