import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { takenBeforeRefusal } from '../http/payment-answer.ts';
import { describeIssue, issuesOf, type Issue } from '../kernel/issues.ts';
import type { HttpDeps } from '../http/routes.ts';
import { checkBeforeQuote, type FreeRoute, type PricedOperation } from '../kernel/operation.ts';
import { IJsonRefused } from '../kernel/rfc7493.ts';
import { paymentRequired } from '../payments/x402/quote.ts';
import { canonicalSha256 } from '../signing/hash.ts';
import type { JsonObject } from '../signing/rfc8785.ts';

/** The x402 MCP transport's keys (x402 specs/transports-v2/mcp.md). */
export const MCP_PAYMENT_META_KEY = 'x402/payment';
export const MCP_PAYMENT_RESPONSE_META_KEY = 'x402/payment-response';

const text = (value: unknown): CallToolResult['content'] => [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }];
const toolError = (message: string, structured?: Record<string, unknown>): CallToolResult => ({ isError: true, content: text(message), ...(structured ? { structuredContent: structured } : {}) });

/**
 * A priced tool call: the same validation, precheck, quote, payment verification, saga and
 * replay as the HTTP route. Without `_meta["x402/payment"]` the result is the transport's
 * payment-required result (isError, the PaymentRequired in structuredContent and as text); with
 * it, the signed result, and the settlement in `_meta["x402/payment-response"]`.
 */
export async function callPricedTool(op: PricedOperation, args: Record<string, unknown>, meta: Record<string, unknown> | undefined, deps: HttpDeps): Promise<CallToolResult> {
  const parsed = op.input.safeParse(args);
  if (!parsed.success) return invalidInput(issuesOf(parsed.error), 'priced');
  const { refusal, handoff } = await checkBeforeQuote(op, parsed.data, deps, Math.floor(Date.now() / 1000));
  if (refusal)
    return toolError(`${refusal.message} (nothing charged)`, {
      error: refusal.error,
      ...(refusal.outcome ? { outcome: refusal.outcome } : {}),
      ...(refusal.issues ? { issues: refusal.issues } : {}),
      // What HTTP says in Retry-After.
      ...(refusal.retryAfterSeconds !== undefined ? { retryAfterSeconds: refusal.retryAfterSeconds } : {}),
    });
  const readiness = deps.store.readiness?.();
  if (readiness && !readiness.ready) return toolError(`${readiness.reason}; nothing was charged, retry later`, { error: 'event_store_unavailable' });

  const payment = meta?.[MCP_PAYMENT_META_KEY];
  if (payment === undefined) {
    deps.stats.recordChallenge();
    return paymentRequiredResult(op, deps);
  }
  const version = (payment as { x402Version?: unknown } | null)?.x402Version;
  const outcome = await deps.payments.handle(
    {
      op,
      input: parsed.data,
      handoff,
      // As over HTTP: a payment binds one request, whichever transport carries it.
      requestHash: canonicalSha256({ method: op.method, path: op.path, input: args as JsonObject }),
      payment: { header: version === 1 ? 'X-PAYMENT' : 'PAYMENT-SIGNATURE', value: Buffer.from(JSON.stringify(payment), 'utf8').toString('base64') },
    },
    deps,
  );
  switch (outcome.kind) {
    case 'paid':
      return { content: text(outcome.body), structuredContent: outcome.body, _meta: { [MCP_PAYMENT_RESPONSE_META_KEY]: outcome.settlement } };
    case 'payment-rejected':
      return paymentRequiredResult(op, deps, outcome.reason, outcome.message);
    case 'refused':
      return toolError(`${outcome.refusal.message}; nothing was charged`, { error: outcome.refusal.error, ...(outcome.refusal.outcome ? { outcome: outcome.refusal.outcome } : {}) });
    case 'refused-after-charge':
      return toolError(`${outcome.refusal.message}; ${takenBeforeRefusal(outcome.transaction)}`, { error: outcome.refusal.error, charged: true, ...(outcome.refusal.outcome ? { outcome: outcome.refusal.outcome } : {}) });
    case 'identifier-conflict':
      return toolError(`${outcome.message}; nothing was charged`, { error: 'payment_identifier_conflict' });
    case 'unavailable':
      return toolError(
        `the call cannot complete right now (${outcome.message}); ${outcome.charged ? 'the payment was taken; retry with the same payment to complete the call without a second charge' : 'nothing was charged, retry with the same payment'}`,
        { error: outcome.reason, charged: outcome.charged },
      );
    case 'failed-after-charge':
      return toolError(`the payment was taken (settlement ${outcome.transaction}) but the result could not be produced; retry with the same payment to resume the call`, { error: 'internal_error_after_payment' });
  }
}

async function paymentRequiredResult(op: PricedOperation, deps: HttpDeps, reason?: string, message?: string): Promise<CallToolResult> {
  const required: Record<string, unknown> = await paymentRequired(op, deps.settings, deps.baseUrl, reason ?? 'payment required: send the PaymentPayload in _meta["x402/payment"]');
  const structured = message ? Object.assign({}, required, { message: `${message}; nothing was charged` }) : required;
  return { isError: true, structuredContent: structured, content: text(structured) };
}

/** An input the tool refuses, with the issues HTTP's 422 lists; a priced tool also says nothing was charged, and the outcome. */
function invalidInput(issues: Issue[], tool: 'priced' | 'free'): CallToolResult {
  const listed = issues.map(describeIssue).join('; ');
  if (tool === 'priced') return toolError(`invalid input (nothing charged): ${listed}`, { error: 'validation_error', outcome: 'INVALID-INPUT', issues });
  return toolError(`invalid input: ${listed}`, { error: 'validation_error', issues });
}

/** A free verify or re-check tool: the route's own handler, answered as structured content. */
export async function callFreeTool(route: FreeRoute, args: Record<string, unknown>, deps: HttpDeps): Promise<CallToolResult> {
  const parsed = route.input!.safeParse(args);
  if (!parsed.success) return invalidInput(issuesOf(parsed.error), 'free');
  const query = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
  let answer;
  try {
    // A tool call comes in a POST, and may change what a POST may.
    answer = await route.handle(parsed.data, deps, { method: 'POST', query, params: {}, body: args });
  } catch (err) {
    // A parameter whose JSON a signature could not carry: over HTTP a 422 naming the member.
    if (err instanceof IJsonRefused) return invalidInput([{ path: err.path, message: err.reason }], 'free');
    throw err;
  }
  // Only verify and re-check routes are tools, and they answer JSON or text; a file or bytes are never a tool's answer.
  if ('file' in answer || 'bytes' in answer) return toolError('this route answers a file or bytes: fetch it over HTTP');
  const body = 'body' in answer ? answer.body : answer.text;
  const isError = (answer.status ?? 200) >= 400;
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? { content: text(body), structuredContent: body, ...(isError ? { isError } : {}) } : { content: text(body), ...(isError ? { isError } : {}) };
}
