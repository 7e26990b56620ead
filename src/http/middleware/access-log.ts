import type { Context, Middleware, Next } from 'koa';
import type { Logger } from 'pino';
import { requestPath } from '../request-input.ts';

/**
 * One line per request: method, route path, status, duration, request id. Deliberately no
 * query string, client address, user agent or payment header: nothing per requester, no secret.
 */
export function accessLog(log: Logger): Middleware {
  // This line is built from the five fields below and nothing else, so it skips the logger's
  // redaction: its wildcard paths cost about 12 us a line, most of what logging a request cost.
  const lines = log.child({}, { redact: [] });
  // Below info (LOG_LEVEL=silent or warn) there is no line to write: no clock reading, no log
  // object and no async frame of this layer on the request's path.
  return (ctx, next) => (lines.isLevelEnabled('info') ? logged(lines, ctx, next) : next());
}

async function logged(log: Logger, ctx: Context, next: Next): Promise<void> {
  const started = process.hrtime.bigint();
  try {
    await next();
  } finally {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    log.info({ requestId: ctx.state.requestId, method: ctx.method, path: requestPath(ctx), status: ctx.status, ms: Math.round(ms * 100) / 100 }, 'request');
  }
}
