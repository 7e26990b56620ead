import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { DomainRefusal } from '../../kernel/decider.ts';
import { IJsonRefused } from '../../kernel/rfc7493.ts';
import { NotImplementedError } from '../../kernel/run-operation.ts';
import { EventStoreUnavailableError } from '../../events/port.ts';
import { ChargedCallFailed } from '../payment-answer.ts';
import { HttpProblem, validationProblem } from '../problem.ts';
import { issuesOf } from '../../kernel/issues.ts';

/**
 * Maps anything thrown below to the one error body; no stack trace ever reaches a client. On
 * `jsonRpcPath` (the MCP endpoint) the body is the same problem as a JSON-RPC error, and a body
 * that is not JSON is a 400, as the MCP SDK's own transport answers it.
 */
export function errors(log: Logger, jsonRpcPath?: string): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new HttpProblem(404, 'not_found', `no route ${ctx.method} ${ctx.path}`);
      if (ctx.status === 405 && (ctx.body === undefined || typeof ctx.body === 'string'))
        throw new HttpProblem(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}`);
    } catch (err) {
      const problem = toProblem(err);
      if (problem.status >= 500 && problem.status !== 501 && problem.status !== 503)
        log.error({ err: err instanceof ChargedCallFailed ? err.cause : err, requestId: ctx.state.requestId, path: ctx.path }, 'unhandled error');
      else if (problem.status === 503) log.warn({ requestId: ctx.state.requestId, reason: problem.message }, 'dependency unavailable');
      const requestId = String(ctx.state.requestId);
      const jsonRpc = ctx.path === jsonRpcPath;
      ctx.status = jsonRpc && problem.isUnparsableBody ? 400 : problem.status;
      for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
      ctx.body = jsonRpc ? problem.jsonRpcError(requestId) : problem.body(requestId);
    }
  };
}

function toProblem(err: unknown): HttpProblem {
  if (err instanceof HttpProblem) return err;
  if (err instanceof ZodError) return validationProblem(issuesOf(err));
  if (err instanceof NotImplementedError)
    return new HttpProblem(501, 'not_implemented', `${err.operation} is catalogued but not built yet`, { operation: err.operation });
  if (err instanceof IJsonRefused) return validationProblem([{ path: err.path, message: err.reason }]);
  if (err instanceof DomainRefusal) return new HttpProblem(err.status, err.error, err.message, err.outcome ? { outcome: err.outcome } : {});
  if (err instanceof EventStoreUnavailableError)
    return new HttpProblem(503, 'event_store_unavailable', 'the event store is unavailable; retry later (a payment is never charged twice: retrying with the same payment completes a call it already paid for)', {}, { 'Retry-After': '5' });
  // Body readers set `status` (raw-body) or `httpCode` (formidable).
  const status = (err as { status?: unknown }).status ?? (err as { httpCode?: unknown }).httpCode;
  const type = (err as { type?: unknown }).type;
  if (status === 413 || type === 'entity.too.large') return new HttpProblem(413, 'payload_too_large', 'request body exceeds the size limit');
  if (type === 'entity.parse.failed' || (status === 400 && err instanceof SyntaxError))
    return validationProblem([{ path: '(body)', message: 'malformed JSON' }]);
  if (typeof (err as { httpCode?: unknown }).httpCode === 'number' && status !== 413)
    return validationProblem([{ path: '(body)', message: `malformed multipart body: ${(err as Error).message}` }]);
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new HttpProblem(status === 400 ? 422 : status, status === 415 ? 'unsupported_media_type' : 'bad_request', (err as Error).message || 'bad request');
  return new HttpProblem(500, 'internal_error', 'internal error');
}
