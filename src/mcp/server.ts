import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Middleware } from 'koa';
import { isMcpTool, toolNameOf } from '../catalog/discovery/manifests.ts';
import type { FreeRoute, PricedOperation, Route } from '../kernel/operation.ts';
import type { HttpDeps } from '../http/routes.ts';
import { inputJsonSchema } from '../payments/x402/quote.ts';
import { checkRequestParams } from './request-params.ts';
import { callFreeTool, callPricedTool } from './tool-calls.ts';

type ToolEntry = { tool: Tool; route: PricedOperation } | { tool: Tool; route: FreeRoute };

/**
 * The catalogue as MCP tools: every built priced operation (paid with the x402 MCP transport)
 * and every free verify or re-check route; an operation that takes a file upload is HTTP only
 * (isMcpTool). Names are valid LLM function names; the operation id rides along in `_meta`.
 */
export function mcpTools(routes: readonly Route[]): Map<string, ToolEntry> {
  const tools = new Map<string, ToolEntry>();
  for (const route of routes) {
    if (route.kind === 'priced' && isMcpTool(route)) {
      tools.set(toolNameOf(route.id), {
        route,
        tool: {
          name: toolNameOf(route.id),
          title: route.summary,
          description: `${route.description} Price: ${route.priceUsd} USD in USDC, paid per call with x402 (the payment travels in _meta["x402/payment"]).`,
          inputSchema: objectSchema(inputJsonSchema(route.input)),
          _meta: { operationId: route.id, 'x402/price': { usd: route.priceUsd }, method: route.method, path: route.path },
        },
      });
    } else if (route.kind === 'free' && route.input && /\.(verify|recheck)$/.test(route.id)) {
      tools.set(toolNameOf(route.id), {
        route,
        tool: {
          name: toolNameOf(route.id),
          title: route.summary,
          description: `${route.description} Free.`,
          inputSchema: objectSchema(inputJsonSchema(route.input)),
          _meta: { operationId: route.id, method: route.method, path: route.path },
        },
      });
    }
  }
  return tools;
}

/** MCP requires an object schema at the top; the catalogue's inputs are objects already. */
function objectSchema(schema: Record<string, unknown>): Tool['inputSchema'] {
  const { $schema: _dialect, ...rest } = schema;
  return Object.assign(rest, { type: 'object' }) as Tool['inputSchema'];
}

/**
 * POST /mcp (mounted by endpoint.ts): a Streamable HTTP MCP server of the official SDK, stateless (a server and a
 * transport per request, no session), in the same Koa service: the same catalogue, the same
 * payment gateway and saga as HTTP, so one payment buys one result whichever way it arrives.
 */
export function mcpServerMiddleware(routes: readonly Route[], deps: HttpDeps): Middleware {
  const tools = mcpTools(routes);
  const list = [...tools.values()].map((entry) => entry.tool);
  return async (ctx) => {
    checkRequestParams((ctx.state as { body?: unknown }).body);
    const server = new Server({ name: 'pay-per-call-attestation-service', version: '2.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: list }));
    server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
      const entry = tools.get(request.params.name);
      if (!entry) return { isError: true, content: [{ type: 'text', text: `no tool named ${request.params.name}` }] };
      const args = request.params.arguments ?? {};
      const meta = request.params._meta as Record<string, unknown> | undefined;
      return entry.route.kind === 'priced' ? callPricedTool(entry.route, args, meta, deps) : callFreeTool(entry.route, args, deps);
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    ctx.respond = false;
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    acceptJsonAnswers(ctx.req.headers);
    await transport.handleRequest(ctx.req, ctx.res, (ctx.state as { body?: unknown }).body);
  };
}

/**
 * This server answers every request with one JSON body, never a stream (enableJsonResponse), so
 * a client that accepts JSON is served: the SDK's transport answers 406 unless the client also
 * lists text/event-stream, which plain JSON-RPC clients (curl, HTTP libraries) do not send.
 */
function acceptJsonAnswers(headers: { accept?: string | undefined }): void {
  const accept = headers.accept ?? '*/*';
  if (/(?:^|,)\s*(?:application\/json|application\/\*|\*\/\*)\s*(?:;|,|$)/i.test(accept)) headers.accept = 'application/json, text/event-stream';
}
