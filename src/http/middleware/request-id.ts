import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';

const ACCEPTABLE = /^[A-Za-z0-9._-]{8,64}$/;

/** Every request gets an id, in the logs and in the X-Request-Id response header. */
export function requestId(): Middleware {
  // Not async, and Node's header objects read directly: on every request this layer should cost
  // a header lookup and a UUID, not a promise of its own and Koa's getter dispatch.
  return (ctx, next) => {
    const offered = ctx.req.headers['x-request-id'];
    const id = typeof offered === 'string' && ACCEPTABLE.test(offered) ? offered : randomUUID();
    ctx.state.requestId = id;
    ctx.res.setHeader('X-Request-Id', id);
    return next();
  };
}
