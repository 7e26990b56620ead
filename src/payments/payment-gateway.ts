import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentPayload, SettleResponse } from '@x402/core/types';
import { extractAndValidatePaymentIdentifier } from '@x402/extensions/payment-identifier';
import type { PricedOperation, ServiceDeps } from '../catalog/types.ts';
import { createPaidCallSaga, type PaidCallSaga } from '../commands/paid-call.ts';
import type { PaymentSettled } from '../events/payment-events.ts';
import { HttpProblem } from '../http/problem.ts';
import { decodePaymentHeader, type DecodedHeader } from './decode.ts';
import type { HttpAnswer, PaidCallRequest, PaymentGateway } from './gateway.ts';
import { paymentRequired, paymentRequiredV1Body } from './quote.ts';
import { PAYMENT_REASONS, PaymentRejected } from './reasons.ts';
import type { Settler, VerifiedPayment } from './settler.ts';
import { verifyPayment } from './verify-payment.ts';

export interface GatewayOptions {
  /** Unix milliseconds; the one clock of a paid call, read once per request. */
  clock?: () => number;
}

/**
 * Decode -> verify against the route's current quote -> the paid-call saga -> the HTTP answer.
 * Everything that can refuse a payment does so before the saga writes anything.
 */
export function createGateway(settler: Settler, options: GatewayOptions = {}): PaymentGateway & { readonly settler: Settler } {
  const clock = options.clock ?? Date.now;
  const saga: PaidCallSaga = createPaidCallSaga(settler);

  return {
    settler,
    async handle(request: PaidCallRequest, deps: ServiceDeps): Promise<HttpAnswer> {
      const now = Math.floor(clock() / 1000);
      let payment: VerifiedPayment;
      let paymentIdentifier: string | undefined;
      try {
        const decoded = decodePaymentHeader(request.payment.header, request.payment.value);
        payment = verifyPayment(decoded, request.op, deps.settings, now);
        paymentIdentifier = paymentIdentifierOf(decoded);
      } catch (err) {
        if (err instanceof PaymentRejected) return paymentRequiredAnswer(request.op, deps, err.reason, err.message);
        throw err;
      }

      const outcome = await saga.run(
        { op: request.op, input: request.input, requestHash: request.requestHash, payment, now, ...(paymentIdentifier ? { paymentIdentifier } : {}) },
        deps,
      );
      switch (outcome.kind) {
        case 'signed':
          return {
            status: 200,
            body: outcome.body,
            headers: { 'PAYMENT-RESPONSE': encodeSettleResponse(settleResponseOf(outcome.settlement)), 'Cache-Control': 'private' },
          };
        case 'rejected':
          return paymentRequiredAnswer(request.op, deps, outcome.reason, outcome.message);
        case 'refused': {
          const { refusal } = outcome;
          throw new HttpProblem(refusal.status, refusal.error, `${refusal.message}; nothing was charged`, {
            ...(refusal.outcome ? { outcome: refusal.outcome } : {}),
            ...(refusal.issues ? { issues: refusal.issues } : {}),
          });
        }
        case 'identifier-conflict':
          throw new HttpProblem(409, 'payment_identifier_conflict', `${outcome.message}; nothing was charged`);
        case 'settlement-unavailable':
          throw new HttpProblem(503, outcome.reason, `settlement is unavailable right now (${outcome.message}); nothing was charged, retry with the same payment`, {}, { 'Retry-After': '5' });
      }
    },
  };
}

/** v2 payloads may carry the payment-identifier extension; a malformed one is a payload problem. */
function paymentIdentifierOf(decoded: DecodedHeader): string | undefined {
  if (decoded.payment.x402Version !== 2 || !decoded.payment.extensions?.['payment-identifier']) return undefined;
  const { id, validation } = extractAndValidatePaymentIdentifier(decoded.raw as unknown as PaymentPayload);
  if (!validation.valid) throw new PaymentRejected(PAYMENT_REASONS.payload, `invalid payment-identifier extension: ${(validation.errors ?? []).join('; ')}`);
  return id ?? undefined;
}

/**
 * What @x402/core's encodePaymentResponseHeader produces (standard base64 of the UTF-8 JSON; we
 * never set extensionResponses, which it drops), without its character-by-character btoa.
 */
function encodeSettleResponse(response: SettleResponse): string {
  return Buffer.from(JSON.stringify(response), 'utf8').toString('base64');
}

function settleResponseOf(settled: PaymentSettled): SettleResponse {
  return { success: true, transaction: settled.transaction, network: settled.network as SettleResponse['network'], payer: settled.payer, amount: settled.amount };
}

/** 402 with the route's quote and the reason, in the v2 header and the v1 body alike. */
export function paymentRequiredAnswer(op: PricedOperation, deps: ServiceDeps, reason: string, message: string): HttpAnswer {
  return {
    status: 402,
    headers: { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(paymentRequired(op, deps.settings, deps.baseUrl, reason)), 'Cache-Control': 'no-store' },
    body: { ...paymentRequiredV1Body(op, deps.settings, deps.baseUrl, reason), message: `${message}; nothing was charged` },
  };
}
