import Koa, { type Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { Logger } from 'pino';
import { MAX_JSON_BODY_BYTES } from '../kernel/limits.ts';
import type { Route } from '../kernel/operation.ts';
import { accessLog } from './middleware/access-log.ts';
import { cors } from './middleware/cors.ts';
import { errors } from './middleware/errors.ts';
import { requestId } from './middleware/request-id.ts';
import { buildRouting, type HttpDeps } from './routes.ts';

/** The Koa app: small middleware, each doing one thing, then the catalogue's router. */
export function createApp(routes: readonly Route[], deps: HttpDeps, log: Logger): Koa {
  const app = new Koa();
  app.proxy = false;
  app.silent = true; // errors are answered and logged by the error middleware, never printed with stacks
  app.use(requestId());
  app.use(accessLog(log));
  app.use(cors());
  app.use(errors(log));
  app.use(
    onlyWithBody(
      koaBody({ jsonLimit: MAX_JSON_BODY_BYTES, jsonStrict: true, urlencoded: false, text: false, multipart: false }),
      // Multipart is never parsed here: only an operation that takes files reads its own upload
      // (http/multipart.ts), so no other route can be made to write an upload to disk.
      koaBody({ jsonLimit: MAX_JSON_BODY_BYTES, jsonStrict: true, urlencoded: false, text: false, multipart: false }),
    ),
  );
  const { exactMatch, router } = buildRouting(routes, deps);
  app.use(exactMatch);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}

const JSON_TYPE = /^application\/json\s*(?:;|$)/i;

/**
 * GET and OPTIONS carry no body: skip the parser's layer on the verify routes' hot path. A POST
 * declared as plain JSON (every paid JSON call) goes to a parser that knows only JSON, which
 * parses it exactly as the full one would, without testing the type against form, text and
 * multipart first; anything else goes to the full parser.
 */
function onlyWithBody(jsonParser: Middleware, parser: Middleware): Middleware {
  return (ctx, next) => {
    if (ctx.method !== 'POST') return next();
    const type = ctx.req.headers['content-type'];
    return type !== undefined && JSON_TYPE.test(type) ? jsonParser(ctx, next) : parser(ctx, next);
  };
}
