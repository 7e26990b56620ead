import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

const ACCEPTABLE = /^[A-Za-z0-9._-]{8,64}$/;

/** Every request gets an id, in the logs and in the X-Request-Id response header. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const offered = ctx.get('X-Request-Id');
    ctx.state.requestId = ACCEPTABLE.test(offered) ? offered : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId as string);
    await next();
  };
}
