import type { Middleware } from 'koa';
import type { HttpDeps } from '../http/routes.ts';
import { once } from '../kernel/once.ts';
import type { Route } from '../kernel/operation.ts';

export const MCP_PATH = '/mcp';

/**
 * POST /mcp, loaded on its first request: the MCP SDK and the tools' JSON Schemas cost about
 * 15 MB and are not needed by a service that no agent has called over MCP yet.
 */
export function mcpEndpoint(routes: readonly Route[], deps: HttpDeps): Middleware {
  const server = once(() => import('./server.ts').then((m) => m.mcpServerMiddleware(routes, deps)));
  return async (ctx, next) => {
    if (ctx.path !== MCP_PATH) return next();
    return (await server())(ctx, next);
  };
}
