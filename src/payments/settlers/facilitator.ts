import { HTTPFacilitatorClient } from '@x402/core/http';
import { FacilitatorTimeoutError, SettleError, VerifyError, type PaymentPayload, type PaymentRequirements } from '@x402/core/types';
import { getAddress, type PublicClient } from 'viem';
import { z } from 'zod';
import type { Settings } from '../../config.ts';
import { SettlementError, type Settlement, type Settler, type VerifiedPayment } from './settler.ts';
import { createBasePublicClient, findSettledTransfer, tokenAddress } from './evm-token.ts';

/** Settlement on Base takes a few seconds; a minute without an answer means the facilitator is stuck. */
const FACILITATOR_TIMEOUT_MS = 60_000;

/** x402 v1 names networks; the CAIP-2 id of our quote maps to this name. */
const V1_NETWORK_BY_CAIP2: Record<string, string> = { 'eip155:8453': 'base' };

export const FacilitatorReasons = {
  unreachable: 'facilitator_unavailable',
  timeout: 'facilitator_timeout',
  rejected: 'facilitator_rejected',
  invalid: 'invalid_payment',
  settleFailed: 'unexpected_settle_error',
  pending: 'settlement_pending',
} as const;

const v1PayloadSchema = z.object({ x402Version: z.literal(1), network: z.string(), scheme: z.string() }).loose();
const v2PayloadSchema = z.object({ x402Version: z.literal(2), accepted: z.record(z.string(), z.unknown()) }).loose();

/**
 * What the facilitator is sent: the payload exactly as the client signed it, and requirements
 * in the same protocol version (v1 facilitators check `maxAmountRequired` and the v1 network name).
 */
function facilitatorRequest(payment: VerifiedPayment): { payload: PaymentPayload; requirements: PaymentRequirements } {
  const requirements = payment.requirements;
  if (payment.x402Version === 1) {
    const payload = v1PayloadSchema.parse(payment.rawPayload);
    const v1Requirements = {
      scheme: requirements.scheme,
      network: payload.network || V1_NETWORK_BY_CAIP2[requirements.network] || requirements.network,
      maxAmountRequired: requirements.amount,
      resource: '',
      description: '',
      mimeType: 'application/json',
      payTo: requirements.payTo,
      maxTimeoutSeconds: requirements.maxTimeoutSeconds,
      asset: requirements.asset,
      extra: requirements.extra,
    };
    return onTheWire(payload, v1Requirements);
  }
  return onTheWire(v2PayloadSchema.parse(payment.rawPayload), requirements);
}

/**
 * The client's verify and settle are typed for x402 v2 objects, and send what they are given as
 * JSON without reading it: v1 payloads and requirements (members the v2 types do not name) go
 * through them, and a v2 payload goes as the client signed it. The one place that tells the type
 * checker so; the schemas above checked the members the service relies on.
 */
function onTheWire(payload: Record<string, unknown>, requirements: Record<string, unknown>): { payload: PaymentPayload; requirements: PaymentRequirements } {
  return { payload: payload as PaymentPayload, requirements: requirements as PaymentRequirements };
}

function httpStatusOf(error: Error): number | undefined {
  const match = /failed \((\d{3})\)/.exec(error.message);
  return match ? Number(match[1]) : undefined;
}

/** The facilitator's own reason when it gave one; transport trouble and 5xx/429 are transient. */
function toSettlementError(error: unknown, operation: 'verify' | 'settle'): SettlementError {
  if (error instanceof SettlementError) return error;
  if (error instanceof VerifyError)
    return new SettlementError(error.invalidReason ?? FacilitatorReasons.invalid, error.invalidMessage ?? error.message, error.statusCode >= 500 || error.statusCode === 429);
  if (error instanceof SettleError)
    return new SettlementError(error.errorReason ?? FacilitatorReasons.settleFailed, error.errorMessage ?? error.message, error.statusCode >= 500 || error.statusCode === 429);
  if (error instanceof FacilitatorTimeoutError)
    // For settle the outcome is unknown: the transfer may have happened. Transient, so the saga
    // comes back, and findSettled (with RPC_URL) tells whether it did.
    return new SettlementError(FacilitatorReasons.timeout, `facilitator ${operation} timed out after ${error.timeoutMs} ms`, true);
  if (error instanceof Error) {
    const status = httpStatusOf(error);
    if (status !== undefined && status < 500 && status !== 429)
      return new SettlementError(FacilitatorReasons.rejected, `facilitator ${operation} refused: ${error.message}`);
    // fetch's TypeError ("fetch failed"), 5xx, 429, malformed answers: try again later.
    return new SettlementError(FacilitatorReasons.unreachable, `facilitator ${operation} failed: ${error.message}`, true);
  }
  return new SettlementError(FacilitatorReasons.unreachable, `facilitator ${operation} failed: ${String(error)}`, true);
}

/**
 * Settlement through an x402 facilitator's HTTP API (`POST /verify`, `POST /settle`) at
 * FACILITATOR_URL. The facilitator submits the transfer and pays the gas.
 *
 * findSettled: the facilitator API has no "did you settle this?" query. With RPC_URL set the
 * chain answers (authorizationState + the AuthorizationUsed log); without it the answer is
 * undefined, and a retried settle relies on the facilitator refusing a spent nonce.
 */
export function createFacilitatorSettler(settings: Settings): Settler {
  if (!settings.FACILITATOR_URL) throw new Error('FACILITATOR_URL is required when SETTLEMENT=facilitator');
  const client = new HTTPFacilitatorClient({ url: settings.FACILITATOR_URL, timeoutMs: FACILITATOR_TIMEOUT_MS });
  const chainReader: PublicClient | undefined = settings.RPC_URL ? createBasePublicClient(settings.RPC_URL) : undefined;

  return {
    mode: 'facilitator',

    async verify(payment) {
      const { payload, requirements } = facilitatorRequest(payment);
      let answer;
      try {
        answer = await client.verify(payload, requirements);
      } catch (error) {
        throw toSettlementError(error, 'verify');
      }
      if (!answer.isValid)
        throw new SettlementError(answer.invalidReason ?? FacilitatorReasons.invalid, answer.invalidMessage ?? 'the facilitator found the payment invalid');
    },

    async settle(payment): Promise<Settlement> {
      const { payload, requirements } = facilitatorRequest(payment);
      let answer;
      try {
        answer = await client.settle(payload, requirements);
      } catch (error) {
        throw toSettlementError(error, 'settle');
      }
      if (!answer.success) {
        const reason = answer.errorReason ?? FacilitatorReasons.settleFailed;
        const pending = reason === FacilitatorReasons.pending;
        const message = `${answer.errorMessage ?? 'the facilitator could not settle the payment'}${answer.transaction ? ` (transaction ${answer.transaction})` : ''}`;
        throw new SettlementError(reason, message, pending);
      }
      return {
        mode: 'facilitator',
        transaction: answer.transaction,
        network: answer.network,
        payer: answer.payer ? getAddress(answer.payer) : getAddress(payment.authorization.from),
        amount: payment.authorization.value,
        demo: false,
      };
    },

    async findSettled(payment) {
      if (!chainReader) return undefined;
      return findSettledTransfer(chainReader, tokenAddress(payment, settings.USDC_ADDRESS), payment, 'facilitator');
    },
  };
}
