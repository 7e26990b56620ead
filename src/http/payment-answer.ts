import { createReadStream } from 'node:fs';
import type { Context } from 'koa';
import type { PricedOperation, ServiceDeps } from '../kernel/operation.ts';
import type { PaymentHeaderName, PaymentOutcome } from '../payments/gateway.ts';
import { paymentRequired, paymentRequiredV1Body } from '../payments/x402/quote.ts';
import { quoteLibraries } from '../payments/x402/quote-libraries.ts';
import { encodeSettleResponse } from '../payments/x402/settle-response.ts';
import { HttpProblem } from './problem.ts';

/**
 * A fault after the payment was settled. The error middleware logs the cause and answers 500 with
 * the truth: the payment was taken, and a retry with the same payment resumes the call.
 */
export class ChargedCallFailed extends HttpProblem {
  constructor(
    override readonly cause: unknown,
    transaction: string,
  ) {
    super(500, 'internal_error_after_payment', `the payment was taken (settlement ${transaction}) but the result could not be produced; retry with the same payment to resume the call without a second charge`);
  }
}

/** What a refusal decided after the settlement says of the payment, over HTTP and MCP alike. */
export const takenBeforeRefusal = (transaction: string): string =>
  `the payment was taken (settlement ${transaction}): another call changed this state between the free check and the command; the same payment answers the same`;

/** 402 with the v2 quote in PAYMENT-REQUIRED and the v1 form in the body. */
export async function answerPaymentRequired(ctx: Context, op: PricedOperation, deps: ServiceDeps, reason?: string, message?: string): Promise<void> {
  const { encodePaymentRequiredHeader } = (await quoteLibraries()).coreHttp;
  const quote = await paymentRequired(op, deps.settings, deps.baseUrl, reason);
  ctx.status = 402;
  ctx.set('PAYMENT-REQUIRED', encodePaymentRequiredHeader(quote));
  ctx.set('Cache-Control', 'no-store');
  const body = paymentRequiredV1Body(op, deps.settings, deps.baseUrl, reason);
  ctx.body = message === undefined ? body : Object.assign(body, { message: `${message}; nothing was charged` });
}

/** The paid answer's leaf index in the result log (GET /v1/log/proof/inclusion takes it further). */
export const LOG_LEAF_INDEX_HEADER = 'X-Log-Leaf-Index';

type Paid = Extract<PaymentOutcome, { kind: 'paid' }>;

/** 200 with the settlement for the client (v2 and v1 header names) and the result's leaf index. */
function setPaidHeaders(ctx: Context, outcome: Paid, header: PaymentHeaderName): void {
  ctx.status = 200;
  const settlement = encodeSettleResponse(outcome.settlement);
  ctx.set('PAYMENT-RESPONSE', settlement);
  // x402 v1 clients read the settlement from X-PAYMENT-RESPONSE.
  if (header === 'X-PAYMENT') ctx.set('X-PAYMENT-RESPONSE', settlement);
  ctx.set('Cache-Control', 'private');
  // Outside the signed record: where the result sits in the transparency log.
  if (outcome.logLeafIndex !== undefined) ctx.set(LOG_LEAF_INDEX_HEADER, String(outcome.logLeafIndex));
}

/** The signed purchase receipt of a paid file, as a header: base64url of its JSON. */
export const PURCHASE_RECEIPT_HEADER = 'X-Purchase-Receipt';

/** A paid file: streamed from disk after settlement, its signed receipt in a header, ETag its SHA-256. */
export async function answerPaidFile(ctx: Context, op: PricedOperation, deps: ServiceDeps, outcome: Paid, header: PaymentHeaderName): Promise<void> {
  const file = await op.deliver!(outcome.body, deps);
  if ('gone' in file) throw new HttpProblem(410, 'file_replaced', `${file.gone}; the payment was taken and its receipt is valid: contact the operator`);
  setPaidHeaders(ctx, outcome, header);
  ctx.set(PURCHASE_RECEIPT_HEADER, Buffer.from(JSON.stringify(outcome.body)).toString('base64url'));
  ctx.set('ETag', `"${file.sha256}"`);
  ctx.set('Content-Disposition', `attachment; filename="${file.filename}"`);
  ctx.type = file.contentType;
  ctx.length = file.bytes;
  ctx.body = createReadStream(file.path);
}

/**
 * The paid body as Koa writes JSON (JSON.stringify, `application/json; charset=utf-8`), from its
 * text when it was made already: a large record's text is then copied, not serialised again.
 */
function answerJson(ctx: Context, outcome: Paid): void {
  if (!outcome.bodyJson) {
    ctx.body = outcome.body;
    return;
  }
  ctx.type = 'json';
  ctx.body = Buffer.from(outcome.bodyJson.buffer, outcome.bodyJson.byteOffset, outcome.bodyJson.byteLength);
}

/** The one place a payment outcome becomes a status code. */
export async function answerPaymentOutcome(ctx: Context, op: PricedOperation, deps: ServiceDeps, outcome: PaymentOutcome, header: PaymentHeaderName): Promise<void> {
  switch (outcome.kind) {
    case 'paid': {
      setPaidHeaders(ctx, outcome, header);
      answerJson(ctx, outcome);
      return;
    }
    case 'payment-rejected':
      await answerPaymentRequired(ctx, op, deps, outcome.reason, outcome.message);
      return;
    case 'refused': {
      const { refusal } = outcome;
      throw new HttpProblem(refusal.status, refusal.error, `${refusal.message}; nothing was charged`, {
        ...(refusal.outcome ? { outcome: refusal.outcome } : {}),
        ...(refusal.issues ? { issues: refusal.issues } : {}),
      });
    }
    case 'refused-after-charge': {
      const { refusal } = outcome;
      throw new HttpProblem(refusal.status, refusal.error, `${refusal.message}; ${takenBeforeRefusal(outcome.transaction)}`, refusal.outcome ? { outcome: refusal.outcome } : {});
    }
    case 'identifier-conflict':
      throw new HttpProblem(409, 'payment_identifier_conflict', `${outcome.message}; nothing was charged`);
    case 'unavailable': {
      const charge = outcome.charged
        ? 'the payment was taken; retry with the same payment to complete the call without a second charge'
        : 'nothing was charged, retry with the same payment';
      throw new HttpProblem(503, outcome.reason, `the call cannot complete right now (${outcome.message}); ${charge}`, {}, { 'Retry-After': '5' });
    }
    case 'failed-after-charge':
      throw new ChargedCallFailed(outcome.error, outcome.transaction);
  }
}
