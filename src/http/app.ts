import Koa from 'koa';
import type { Logger } from 'pino';
import { MAX_JSON_BODY_BYTES } from '../kernel/limits.ts';
import type { Route } from '../kernel/operation.ts';
import { accessLog } from './middleware/access-log.ts';
import { identityBodiesOnly } from './middleware/content-coding.ts';
import { cors } from './middleware/cors.ts';
import { errors } from './middleware/errors.ts';
import { jsonBody } from './middleware/json-body.ts';
import { requestId } from './middleware/request-id.ts';
import { buildRouting, type HttpDeps } from './routes.ts';
import { MCP_PATH, mcpEndpoint } from '../mcp/endpoint.ts';

/** The Koa app: small middleware, each doing one thing, then the catalogue's router. */
export function createApp(routes: readonly Route[], deps: HttpDeps, log: Logger): Koa {
  const app = new Koa();
  app.proxy = false;
  app.silent = true; // errors are answered and logged by the error middleware, never printed with stacks
  app.use(requestId());
  app.use(accessLog(log));
  app.use(cors());
  app.use(errors(log, MCP_PATH));
  app.use(identityBodiesOnly());
  app.use(jsonBody(MAX_JSON_BODY_BYTES));

  app.use(mcpEndpoint(routes, deps));
  const { exactMatch, router } = buildRouting(routes, deps);
  app.use(exactMatch);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
