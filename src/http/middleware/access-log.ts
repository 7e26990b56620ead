import type { Context, Middleware, Next } from 'koa';
import type { Logger } from 'pino';

/**
 * One line per request: method, route path, status, duration, request id. Deliberately no
 * query string, client address, user agent or payment header: nothing per requester, no secret.
 */
export function accessLog(log: Logger): Middleware {
  // Below info (LOG_LEVEL=silent or warn) there is no line to write: no clock reading, no log
  // object and no async frame of this layer on the request's path.
  return (ctx, next) => (log.isLevelEnabled('info') ? logged(log, ctx, next) : next());
}

async function logged(log: Logger, ctx: Context, next: Next): Promise<void> {
  const started = process.hrtime.bigint();
  try {
    await next();
  } finally {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    log.info({ requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 100) / 100 }, 'request');
  }
}
