import type { Middleware } from 'koa';
import { HttpProblem } from '../http/problem.ts';
import type { HttpDeps } from '../http/routes.ts';
import { once } from '../kernel/once.ts';
import type { Route } from '../kernel/operation.ts';

export const MCP_PATH = '/mcp';

/**
 * The most JSON-RPC messages one POST may carry. MCP dropped batches in its 2025-06-18 revision;
 * the SDK still takes up to 100 for older clients, and a hundred `tools/list` in one small body
 * answer about 9 MB, built in memory before the first byte leaves. Sixteen covers what a client
 * of the 2025-03-26 revision batches (a request with its notifications, a few tool calls).
 */
export const MCP_MAX_BATCH = 16;

/**
 * POST /mcp, loaded on its first request: the MCP SDK and the tools' JSON Schemas cost about
 * 15 MB and are not needed by a service that no agent has called over MCP yet.
 */
export function mcpEndpoint(routes: readonly Route[], deps: HttpDeps): Middleware {
  const server = once(() => import('./server.ts').then((m) => m.mcpServerMiddleware(routes, deps)));
  return async (ctx, next) => {
    if (ctx.path !== MCP_PATH) return next();
    // Stateless: there is no session to stream to or to end. The SDK's transport would open an
    // SSE stream for a GET and keep it, with a server instance, for as long as the client
    // liked: free, and without end. The MCP transport spec allows 405 instead.
    if (ctx.method !== 'POST')
      throw new HttpProblem(405, 'method_not_allowed', `${ctx.method} is not served on ${MCP_PATH}: the endpoint is stateless (no SSE stream, no session to end); send JSON-RPC requests with POST`, {}, { Allow: 'POST, OPTIONS' });
    const body = (ctx.state as { body?: unknown }).body;
    if (Array.isArray(body) && body.length > MCP_MAX_BATCH)
      throw new HttpProblem(400, 'batch_too_large', `a batch of ${body.length} JSON-RPC messages: at most ${MCP_MAX_BATCH} in one request (send more requests, or one message each)`);
    return (await server())(ctx, next);
  };
}
