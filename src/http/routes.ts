import { createReadStream } from 'node:fs';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Router } from '@koa/router';
import type { Context, Middleware } from 'koa';
import { checkBeforeQuote, type FreeRoute, type PricedOperation, type Route, type ServiceDeps } from '../kernel/operation.ts';
import { NotImplementedError } from '../kernel/run-operation.ts';
import type { PaymentGateway, PaymentHeaderName } from '../payments/gateway.ts';
import { PAYMENT_REASONS } from '../payments/x402/reasons.ts';
import { canonicalSha256 } from '../signing/hash.ts';
import type { JsonValue } from '../signing/rfc8785.ts';
import { HttpProblem, validationProblem } from './problem.ts';
import { issuesOf } from '../kernel/issues.ts';
import { answerPaidFile, answerPaymentOutcome, answerPaymentRequired } from './payment-answer.ts';
import { readMultipart } from './multipart.ts';
import { jsonBody, requestPath, singleValuedQuery } from './request-input.ts';

type Handler = (ctx: Context) => Promise<void>;

/** What the HTTP layer needs beyond the operations' own dependencies: the payment gateway. */
export interface HttpDeps extends ServiceDeps {
  payments: PaymentGateway;
}

/**
 * The routing, generated from the catalogue: one handler per entry, nothing written twice.
 * Every route is registered on @koa/router, which answers everything it routes: path
 * parameters, HEAD, trailing slashes, case, 405 and OPTIONS. In front of it sits an exact-match
 * table of the routes without parameters, keyed by method and path as written in the catalogue:
 * a request that hits it exactly (nearly every call) skips the router's per-request work (a
 * regular expression per registered route, a composed chain built per request), which was a
 * measurable share of a paid call's CPU. Anything else falls through to the router.
 */
export function buildRouting(routes: readonly Route[], deps: HttpDeps): { exactMatch: Middleware; router: Router } {
  const router = new Router();
  const exact = new Map<string, Handler>();
  for (const route of routes) {
    const handler = route.kind === 'priced' ? pricedHandler(route, deps) : freeHandler(route, deps);
    if (route.method === 'GET') router.get(route.path, handler);
    else router.post(route.path, handler);
    if (!/[:*]/.test(route.path)) exact.set(`${route.method} ${route.path}`, handler);
  }
  const exactMatch: Middleware = (ctx, next) => {
    const handler = exact.get(`${ctx.req.method} ${requestPath(ctx)}`);
    if (handler) return handler(ctx);
    if (!SERVED_METHODS.has(ctx.req.method ?? '')) return methodNotAllowed(ctx, router);
    return next();
  };
  return { exactMatch, router };
}

const SERVED_METHODS = new Set(['GET', 'HEAD', 'POST', 'OPTIONS']);

/**
 * TRACE, QUERY, PUT, DELETE and any other method: 405 with the methods the path does take in
 * Allow (RFC 9110 section 15.5.6), or 404 when no route has that path. Never 501: the service
 * knows the method, and refuses it on purpose.
 */
function methodNotAllowed(ctx: Parameters<Middleware>[0], router: Router): void {
  const matched = router.match(requestPath(ctx), 'GET');
  const methods = new Set(matched.path.flatMap((layer) => layer.methods));
  if (methods.size === 0) throw new HttpProblem(404, 'not_found', `no route ${ctx.method} ${requestPath(ctx)}`);
  methods.add('OPTIONS');
  ctx.set('Allow', [...methods].join(', '));
  throw new HttpProblem(405, 'method_not_allowed', `${ctx.method} is not allowed on ${requestPath(ctx)}; allowed: ${[...methods].join(', ')}`, {}, { Allow: [...methods].join(', ') });
}

function freeHandler(route: FreeRoute, deps: ServiceDeps) {
  return async (ctx: Context) => {
    const query = singleValuedQuery(ctx);
    const params = (ctx as Context & { params?: Record<string, string> }).params ?? {};
    const body = jsonBody(ctx);
    let input: unknown = undefined;
    if (route.input) {
      const raw =
        route.inputFrom === 'json' ? body
          : route.inputFrom === 'path' ? params
            : route.inputFrom === 'query-or-path' ? { ...query, ...params }
            : route.inputFrom === 'query-or-json' ? { ...(isPlainObject(body) ? body : {}), ...query }
              : query;
      const parsed = route.input.safeParse(raw);
      if (!parsed.success) throw validationProblem(issuesOf(parsed.error));
      input = parsed.data;
    }
    const answer = await route.handle(input, deps, { method: ctx.method, query, params, body });
    ctx.status = answer.status ?? 200;
    if (answer.headers) for (const name in answer.headers) ctx.set(name, answer.headers[name]!);
    if ('text' in answer) {
      ctx.type = answer.contentType;
      ctx.body = answer.text;
    } else if ('bytes' in answer) {
      ctx.type = answer.contentType;
      ctx.body = answer.compressible ? await gzippedWhenAccepted(ctx, answer.bytes) : answer.bytes;
    } else if ('file' in answer) {
      ctx.type = answer.contentType;
      ctx.body = createReadStream(answer.file);
    } else {
      ctx.body = isRefusal(answer.status, answer.body) ? Object.assign({}, answer.body, { requestId: String(ctx.state.requestId) }) : answer.body;
    }
  };
}

const gzipAsync = promisify(gzip);

/** The bytes gzipped when the client prefers gzip to identity (RFC 9110 section 12.5.3); the answer varies with Accept-Encoding either way. */
async function gzippedWhenAccepted(ctx: Context, bytes: Buffer): Promise<Buffer> {
  ctx.vary('Accept-Encoding');
  if (ctx.acceptsEncodings('gzip', 'identity') !== 'gzip') return bytes;
  ctx.set('Content-Encoding', 'gzip');
  return gzipAsync(bytes);
}

/** A free route's own refusal ({error, message} with a 4xx or 5xx): it gets the requestId every error body carries. */
function isRefusal(status: number | undefined, body: unknown): body is Record<string, JsonValue> {
  return status !== undefined && status >= 400 && isPlainObject(body) && typeof body['error'] === 'string' && typeof body['message'] === 'string';
}

function pricedHandler(op: PricedOperation, deps: HttpDeps) {
  return async (ctx: Context) => {
    // Never quote what cannot run: an unbuilt operation answers 501 before anything else.
    if (!op.command) throw new NotImplementedError(op.id);
    const upload = op.inputFrom === 'multipart' ? await readMultipart(ctx) : undefined;
    const raw = upload ? upload.input : op.inputFrom === 'json' ? jsonBody(ctx) : singleValuedQuery(ctx);
    if (op.inputFrom === 'json' && !isPlainObject(raw)) throw validationProblem([{ path: '(body)', message: 'a JSON object body is required (Content-Type: application/json)' }]);
    const parsed = op.input.safeParse(raw);
    if (!parsed.success) throw validationProblem(issuesOf(parsed.error));
    const { refusal, handoff } = await checkBeforeQuote(op, parsed.data, deps, Math.floor(Date.now() / 1000));
    if (refusal) {
      const retry = refusal.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(refusal.retryAfterSeconds) };
      throw new HttpProblem(refusal.status, refusal.error, refusal.message, { outcome: refusal.outcome, issues: refusal.issues }, retry);
    }

    // Never quote a call the service cannot record now: the caller would pay for a 503.
    const readiness = deps.store.readiness?.();
    if (readiness && !readiness.ready) throw new HttpProblem(503, 'event_store_unavailable', `${readiness.reason}; nothing was charged, retry later`, {}, { 'Retry-After': '5' });
    const payment = paymentHeaderOf(ctx);
    if (!payment) {
      deps.stats.recordChallenge();
      await answerPaymentRequired(ctx, op, deps);
      return;
    }
    // HEAD is safe (RFC 9110 section 9.3.2): it gets GET's quote, and a payment sent with it is
    // not taken. Taking it would settle a call whose answer has no body.
    if (ctx.method === 'HEAD') {
      await answerPaymentRequired(ctx, op, deps, PAYMENT_REASONS.headIsNotPaid, 'a payment sent with HEAD is not taken; send it with GET');
      return;
    }
    const outcome = await deps.payments.handle(
      { op, input: parsed.data, handoff, requestHash: canonicalSha256({ method: op.method, path: op.path, input: (upload ? upload.hashable : raw) as never }), payment },
      deps,
    );
    if (outcome.kind === 'paid' && op.deliver) await answerPaidFile(ctx, op, deps, outcome, payment.header);
    else await answerPaymentOutcome(ctx, op, deps, outcome, payment.header);
  };
}

function paymentHeaderOf(ctx: Context): { header: PaymentHeaderName; value: string } | undefined {
  const v2 = ctx.get('PAYMENT-SIGNATURE');
  if (v2) return { header: 'PAYMENT-SIGNATURE', value: v2 };
  const v1 = ctx.get('X-PAYMENT');
  if (v1) return { header: 'X-PAYMENT', value: v1 };
  return undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export { HttpProblem };
