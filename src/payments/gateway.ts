import type { SettleResponse } from '@x402/core/types';
import type { PricedOperation, Refusal, ServiceDeps } from '../kernel/operation.ts';
import type { JsonObject } from '../signing/rfc8785.ts';
import { createPaidCallSaga, type PaidCallSaga } from './saga/paid-call.ts';
import type { PaymentSettled } from './saga/events.ts';
import type { Settler, VerifiedPayment } from './settlers/settler.ts';
import { decodePaymentHeader, type DecodedHeader } from './x402/decode.ts';
import { PAYMENT_IDENTIFIER_KEY, quoteLibraries } from './x402/quote-libraries.ts';
import { PAYMENT_REASONS, PaymentRejected } from './x402/reasons.ts';
import { verifyPayment } from './x402/verify-payment.ts';

export type PaymentHeaderName = 'PAYMENT-SIGNATURE' | 'X-PAYMENT';

/** A priced request whose input validated and that carries a payment header. */
export interface PaidCallRequest {
  op: PricedOperation;
  input: unknown;
  /**
   * What the operation's precheck handed its command in this request (checkBeforeQuote); it goes
   * no further than this request's command, and is neither signed nor stored.
   */
  handoff?: unknown;
  /** SHA-256 of the canonical {method, path, input}: binds a payment to one request. */
  requestHash: string;
  payment: { header: PaymentHeaderName; value: string };
}

/**
 * What became of a paid request. The payment core speaks only in outcomes; http/ alone turns
 * them into status codes and headers.
 */
export type PaymentOutcome =
  /** The signed result, with the settlement the x402 response header reports. */
  | { kind: 'paid'; body: JsonObject; bodyJson?: Uint8Array; settlement: SettleResponse; logLeafIndex?: number }
  /** The payment cannot pay for this request: quote again with the reason. Nothing was charged. */
  | { kind: 'payment-rejected'; reason: string; message: string }
  /** The command refused before settlement (another payer's state): nothing was charged. */
  | { kind: 'refused'; refusal: Refusal }
  /** The payment identifier was first used with another payload: nothing was charged. */
  | { kind: 'identifier-conflict'; message: string }
  /**
   * The call cannot complete now. `charged` says whether a settlement is already durable: then a
   * retry with the same payment completes the call without a second charge.
   */
  | { kind: 'unavailable'; reason: string; message: string; charged: boolean }
  /** The command refused after settlement, the state having changed since the free check: the payment was taken. */
  | { kind: 'refused-after-charge'; refusal: Refusal; transaction: string }
  /** The work failed after settlement (a fault, not the input): the payment was taken; a retry resumes. */
  | { kind: 'failed-after-charge'; error: unknown; transaction: string };

/** Verifies the payment and runs the paid-call saga. */
export interface PaymentGateway {
  handle(request: PaidCallRequest, deps: ServiceDeps): Promise<PaymentOutcome>;
}

export interface GatewayOptions {
  /** Unix milliseconds; the one clock of a paid call, read once per request. */
  clock?: () => number;
}

/**
 * Decode -> verify against the route's current quote -> the paid-call saga. Everything that can
 * refuse a payment does so before the saga writes anything.
 */
export function createGateway(settler: Settler, options: GatewayOptions = {}): PaymentGateway & { readonly settler: Settler } {
  const clock = options.clock ?? Date.now;
  const saga: PaidCallSaga = createPaidCallSaga(settler);

  return {
    settler,
    async handle(request: PaidCallRequest, deps: ServiceDeps): Promise<PaymentOutcome> {
      const now = Math.floor(clock() / 1000);
      let payment: VerifiedPayment;
      let paymentIdentifier: string | undefined;
      try {
        const decoded = decodePaymentHeader(request.payment.header, request.payment.value);
        payment = await verifyPayment(decoded, request.op, deps.settings);
        // Only a payment that carries the extension waits for its library (loaded at first use).
        const extension = paymentIdentifierExtension(decoded);
        paymentIdentifier = extension === undefined ? undefined : await paymentIdentifierIn(extension);
      } catch (err) {
        if (err instanceof PaymentRejected) return { kind: 'payment-rejected', reason: err.reason, message: err.message };
        throw err;
      }

      const outcome = await saga.run(
        { op: request.op, input: request.input, handoff: request.handoff, requestHash: request.requestHash, payment, now, ...(paymentIdentifier ? { paymentIdentifier } : {}) },
        deps,
      );
      switch (outcome.kind) {
        case 'signed': {
          const logLeafIndex = await leafIndexOf(deps, outcome.sha256, outcome.position);
          // The body is passed on unread: answered from bodyJson, it is never made (execute-and-sign.ts).
          return {
            kind: 'paid',
            get body(): JsonObject {
              return outcome.body;
            },
            ...(outcome.bodyJson ? { bodyJson: outcome.bodyJson } : {}),
            settlement: settleResponseOf(outcome.settlement),
            ...(logLeafIndex === undefined ? {} : { logLeafIndex }),
          };
        }
        case 'rejected':
          return { kind: 'payment-rejected', reason: outcome.reason, message: outcome.message };
        case 'refused':
          return { kind: 'refused', refusal: outcome.refusal };
        case 'identifier-conflict':
          return { kind: 'identifier-conflict', message: outcome.message };
        case 'unavailable':
        case 'refused-after-charge':
        case 'failed-after-charge':
          return outcome;
      }
    },
  };
}

/** The payment-identifier extension a v2 payload carries, if any. */
function paymentIdentifierExtension(decoded: DecodedHeader): unknown {
  const extension = decoded.payment.x402Version === 2 ? decoded.payment.extensions?.[PAYMENT_IDENTIFIER_KEY] : undefined;
  return extension ? extension : undefined;
}

/**
 * The payment-identifier extension's id (v2 payloads only; a malformed one is a payload
 * problem), checked by the extension's own rules: `info.required` a boolean, `info.id` absent or
 * 16-128 letters, digits, _ and -. The schema a client sends beside `info` is ignored. The SDK's
 * validator (extractAndValidatePaymentIdentifier) compiled it with Ajv and ran its patterns, so a
 * client's pattern such as ^(a+)+$ held the event loop for seconds, doubling with each character
 * (found by fuzzing), and compiling the quoted schema cost about 40 ms of CPU a call.
 */
async function paymentIdentifierIn(extension: unknown): Promise<string | undefined> {
  const refuse = (problem: string) => new PaymentRejected(PAYMENT_REASONS.payload, `invalid payment-identifier extension: ${problem}`);
  const info = typeof extension === 'object' ? (extension as { info?: unknown }).info : undefined;
  if (typeof info !== 'object' || info === null || Array.isArray(info)) throw refuse('it must have an info object');
  const { required, id } = info as { required?: unknown; id?: unknown };
  if (typeof required !== 'boolean') throw refuse('info.required must be a boolean');
  if (id === undefined) return undefined;
  const { isValidPaymentId, PAYMENT_ID_MAX_LENGTH, PAYMENT_ID_MIN_LENGTH } = (await quoteLibraries()).paymentIdentifier;
  if (typeof id !== 'string' || !isValidPaymentId(id)) throw refuse(`info.id must be ${PAYMENT_ID_MIN_LENGTH}-${PAYMENT_ID_MAX_LENGTH} characters, each a letter, a digit, _ or -`);
  return id;
}

function settleResponseOf(settled: PaymentSettled): SettleResponse {
  return { success: true, transaction: settled.transaction, network: settled.network as SettleResponse['network'], payer: settled.payer, amount: settled.amount };
}

/** How long a paid answer waits for the result log to fold its result in, to name its leaf. */
const LEAF_WAIT_MS = 1_000;

/**
 * The result's leaf in the transparency log, so the client can ask for its inclusion proof. The
 * log folds the event in moments after the append; if it has not within LEAF_WAIT_MS the answer
 * goes without the index (the proof route finds the result by its sha256 all the same).
 */
async function leafIndexOf(deps: ServiceDeps, sha256: string, position: bigint | undefined): Promise<number | undefined> {
  const log = deps.resultLog;
  if (!log) return undefined;
  if (position !== undefined && !(await log.caughtUpTo(position, LEAF_WAIT_MS))) return undefined;
  return log.leafIndexOf(sha256, position);
}
