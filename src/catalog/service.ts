import { z } from 'zod';
import { usdToAtomic, freeRoute, type FreeResponse, type FreeRoute, type PricedOperation, type Route, type ServiceDeps } from '../kernel/operation.ts';
import type { JsonValue } from '../signing/rfc8785.ts';
import { agentCard, llmsTxt, mcpManifest, x402Manifest } from './discovery/manifests.ts';
import { openApiDocument } from './discovery/openapi.ts';
import { MAX_JSON_BODY_BYTES, MAX_MULTIPART_BYTES } from '../kernel/limits.ts';

const anyDocument = z.looseObject({});

/**
 * A discovery document depends on the catalogue, the settings and the base URL only, all fixed
 * for the life of the service: it is made on the first request and its text kept. Made afresh,
 * the OpenAPI document (every schema converted to JSON Schema) held the event loop about 40 ms a
 * request, on a free route.
 */
function madeOnce(make: (deps: ServiceDeps) => JsonValue | string | Promise<JsonValue>, contentType = 'application/json; charset=utf-8') {
  let made: { settings: ServiceDeps['settings']; baseUrl: string; text: string } | undefined;
  return async (_input: unknown, deps: ServiceDeps): Promise<FreeResponse> => {
    if (made?.settings !== deps.settings || made.baseUrl !== deps.baseUrl) {
      const document = await make(deps);
      made = { settings: deps.settings, baseUrl: deps.baseUrl, text: typeof document === 'string' ? document : JSON.stringify(document) };
    }
    return { text: made.text, contentType, headers: { 'Cache-Control': 'public, max-age=300' } };
  };
}

/**
 * The service's own routes. The discovery documents describe the whole catalogue, these routes
 * included, so they are handed a way to read it when a request comes.
 */
export function createServiceRoutes(wholeCatalog: () => readonly Route[]): FreeRoute[] {
  const catalog = wholeCatalog;
  const pricedOperations = () => wholeCatalog().filter((r): r is PricedOperation => r.kind === 'priced');
  return [
  freeRoute({
    id: 'health',
    method: 'GET',
    path: '/health',
    family: 'service',
    summary: 'Health check.',
    description: 'Returns {status: "ok"} while the service can answer.',
    output: z.object({ status: z.literal('ok') }),
    handle: async () => ({ body: { status: 'ok' } }),
  }),
  freeRoute({
    id: 'index',
    method: 'GET',
    path: '/',
    family: 'service',
    summary: 'Where to start: the contract, the discovery documents, the public statistics.',
    description: 'A small index of the free documents, so that the base URL every discovery document names answers too.',
    output: anyDocument,
    handle: async (_input, deps) => ({
      body: {
        service: 'Pay-per-call attestation service',
        openapi: `${deps.baseUrl}/openapi.json`,
        x402: `${deps.baseUrl}/.well-known/x402`,
        mcp: `${deps.baseUrl}/mcp.json`,
        agentCard: `${deps.baseUrl}/.well-known/agent-card.json`,
        llms: `${deps.baseUrl}/llms.txt`,
        health: `${deps.baseUrl}/health`,
        ready: `${deps.baseUrl}/ready`,
      },
    }),
  }),
  freeRoute({
    id: 'ready',
    method: 'GET',
    path: '/ready',
    family: 'service',
    summary: 'Readiness: whether the service can take paid calls now, and why not.',
    description: 'Answers 200 {ready: true} while the event store takes appends; 503 {ready: false, reason} with Retry-After while it cannot (a full disk, an unreachable EventStoreDB). /health stays a plain liveness check.',
    output: z.object({ ready: z.boolean(), reason: z.string().optional() }),
    async handle(_input, deps): Promise<FreeResponse> {
      const readiness = deps.store.readiness?.() ?? { ready: true as const };
      return readiness.ready ? { body: { ready: true } } : { status: 503, body: { ready: false, reason: readiness.reason }, headers: { 'Retry-After': '5' } };
    },
  }),
  freeRoute({
    id: 'ping',
    method: 'GET',
    path: '/ping',
    family: 'service',
    summary: 'Liveness check.',
    description: 'Returns pong.',
    output: z.object({ pong: z.literal(true) }),
    handle: async () => ({ body: { pong: true } }),
  }),
  freeRoute({
    id: 'config',
    method: 'GET',
    path: '/config',
    family: 'service',
    summary: 'Public settings: network, asset, payTo, settlement mode, prices and limits.',
    description: 'Never carries a secret.',
    output: anyDocument,
    async handle(_input, deps) {
      const s = deps.settings;
      return {
        body: {
          network: s.NETWORK,
          asset: s.USDC_ADDRESS,
          assetName: 'USDC',
          payTo: s.PAY_TO,
          settlement: s.SETTLEMENT,
          demoSettlement: s.SETTLEMENT === 'local',
          eventStore: s.EVENTSTORE_URL ? 'eventstoredb' : 'embedded-file-log',
          x402Versions: [2, 1],
          prices: Object.fromEntries(pricedOperations().map((op) => [`${op.method} ${op.path}`, { usd: op.priceUsd, atomic: usdToAtomic(op.priceUsd).toString() }])),
          limits: {
            jsonBodyBytes: MAX_JSON_BODY_BYTES,
            multipartBytes: MAX_MULTIPART_BYTES,
            memoryValueCapBytes: s.MEMORY_VALUE_CAP_BYTES,
            statsCacheSeconds: s.STATS_CACHE_SECONDS,
          },
        },
      };
    },
  }),
  freeRoute({
    id: 'public-stats',
    method: 'GET',
    path: '/v1/public/stats',
    family: 'service',
    summary: 'Aggregate-only usage figures from a short-lived cache.',
    description:
      'Genuine third-party payments from the settlement ledger (demo and dust settlements excluded) and correct 402 challenges answered. No client IP, user agent or per-requester identifier is collected or returned.',
    output: z.object({
      paidCalls: z.number().int(),
      revenueAtomic: z.string(),
      revenueUsd: z.string(),
      paymentChallenges: z.number().int(),
      generatedAt: z.number().int(),
      cacheSeconds: z.number().int(),
    }),
    async handle(_input, deps) {
      const stats = await deps.stats.snapshot();
      return { body: { ...stats }, headers: { 'Cache-Control': `public, max-age=${stats.cacheSeconds}` } };
    },
  }),
  freeRoute({
    id: 'openapi',
    method: 'GET',
    path: '/openapi.json',
    family: 'service',
    summary: 'Machine-readable contract (OpenAPI 3.1).',
    description: 'Generated from the operation catalogue.',
    output: anyDocument,
    handle: madeOnce((deps) => openApiDocument(catalog(), deps.settings, deps.baseUrl)),
  }),
  freeRoute({
    id: 'mcp-manifest',
    method: 'GET',
    path: '/mcp.json',
    family: 'service',
    summary: 'Model Context Protocol manifest: tools, their type and the payment rail.',
    description: 'Every priced operation as an MCP tool.',
    output: anyDocument,
    handle: madeOnce((deps) => mcpManifest(pricedOperations(), deps.settings, deps.baseUrl)),
  }),
  freeRoute({
    id: 'x402-manifest',
    method: 'GET',
    path: '/.well-known/x402',
    family: 'service',
    summary: 'The v2 manifest of every pay-per-call endpoint with its price and settlement terms.',
    description: 'Payable endpoints as items in the x402 bazaar discovery shape.',
    output: anyDocument,
    handle: madeOnce((deps) => x402Manifest(pricedOperations(), deps.settings, deps.baseUrl)),
  }),
  freeRoute({
    id: 'agent-card',
    method: 'GET',
    path: '/.well-known/agent-card.json',
    family: 'service',
    summary: 'Agent capability card.',
    description: 'A2A-style card: skills, transports, payment rail.',
    output: anyDocument,
    handle: madeOnce((deps) => agentCard(pricedOperations(), deps.settings, deps.baseUrl)),
  }),
  freeRoute({
    id: 'llms-txt',
    method: 'GET',
    path: '/llms.txt',
    family: 'service',
    summary: 'Summary of the service for language models.',
    description: 'Markdown in the llms.txt convention.',
    output: z.string(),
    produces: 'text/markdown',
    handle: madeOnce((deps) => llmsTxt(pricedOperations(), deps.settings, deps.baseUrl), 'text/markdown; charset=utf-8'),
  }),
  ];
}
