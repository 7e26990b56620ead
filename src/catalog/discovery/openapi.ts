import type { Settings } from '../../config.ts';
import { inputJsonSchema, outputJsonSchema, paymentRequirements } from '../../payments/x402/quote.ts';
import type { JsonObject, JsonValue } from '../../signing/rfc8785.ts';
import { FAMILIES, usdToAtomic, type Route } from '../../kernel/operation.ts';

const errorBody: JsonObject = {
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string', description: 'Stable machine-readable error code' },
    message: { type: 'string' },
    outcome: { type: 'string', description: 'Outcome label when one applies (INVALID-INPUT, BUDGET-EXCEEDED)' },
    issues: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
    requestId: { type: 'string' },
  },
};

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

function parametersOf(route: Route): JsonObject[] {
  const pathParams = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({ name: m[1]!, in: 'path', required: true, schema: { type: 'string' } }));
  const queryFrom = route.kind === 'priced' ? route.inputFrom === 'query' : route.inputFrom === 'query' || route.inputFrom === 'query-or-json' || route.inputFrom === 'query-or-path';
  if (!queryFrom || !route.input) return pathParams;
  const schema = inputJsonSchema(route.input);
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((schema.required ?? []) as string[]);
  const inPath = new Set(pathParams.map((p) => p.name));
  const query = Object.entries(properties)
    .filter(([name]) => !inPath.has(name))
    .map(([name, s]) => ({ name, in: 'query', required: required.has(name), schema: s }));
  return [...pathParams, ...query];
}

function requestBodyOf(route: Route): JsonObject | undefined {
  if (!route.input) return undefined;
  if (route.kind === 'priced' && route.inputFrom === 'multipart')
    return { required: true, content: { 'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } } } } };
  const fromBody = route.kind === 'priced' ? route.inputFrom === 'json' : route.inputFrom === 'json' || route.inputFrom === 'query-or-json';
  if (!fromBody) return undefined;
  const example: JsonObject = route.kind === 'priced' ? { example: route.example as JsonValue } : {};
  return { required: route.kind === 'priced' || route.inputFrom === 'json', content: { 'application/json': { schema: inputJsonSchema(route.input), ...example } } };
}

function operationOf(route: Route, settings: Settings): JsonObject {
  const responses: JsonObject = {
    '200': route.kind === 'free' && route.produces
      ? { description: 'OK', content: { [route.produces]: { schema: { type: 'string' } } } }
      : { description: 'OK', content: { 'application/json': { schema: outputJsonSchema(route.output) } } },
  };
  if (route.input || route.path.includes(':')) responses['422'] = { description: 'Validation error (nothing charged)', content: { 'application/json': { schema: errorBody } } };
  const planned = route.kind === 'priced' ? !route.command : route.planned === true;
  if (planned) responses['501'] = { description: 'Catalogued, not built yet', content: { 'application/json': { schema: errorBody } } };
  const op: JsonObject = {
    operationId: route.id,
    summary: route.summary,
    description: route.description,
    tags: [route.family === 'service' ? 'Service' : FAMILIES[route.family]],
    parameters: parametersOf(route),
    responses,
    'x-status': planned ? 'not_implemented' : 'available',
  };
  const body = requestBodyOf(route);
  if (body) op.requestBody = body;
  if (route.kind === 'priced') {
    responses['402'] = {
      description: 'Payment required: the x402 v2 quote is in the PAYMENT-REQUIRED header (base64 JSON); the body carries the v1 form.',
      headers: { 'PAYMENT-REQUIRED': { schema: { type: 'string' }, description: 'Base64 of the x402 v2 PaymentRequired JSON' } },
      content: { 'application/json': { schema: { type: 'object' } } },
    };
    op['x-price'] = route.priceUsd;
    op['x-price-atomic'] = usdToAtomic(route.priceUsd).toString();
    op['x-payment'] = paymentRequirements(route, settings) as unknown as JsonObject;
    op.security = [{ x402: [] }];
  }
  return op;
}

/** OpenAPI 3.1.0, generated from the catalogue: every route, its schemas, its 402 and 422. */
export function openApiDocument(routes: readonly Route[], settings: Settings, baseUrl: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const path = toOpenApiPath(route.path);
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: operationOf(route, settings) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pay-per-call attestation service',
      version: '2.0.0',
      description:
        'Priced operations are paid per request with x402 v2 (USDC on Base, eip155:8453, EIP-3009). Every result is RFC 8785 canonical JSON, SHA-256 hashed and Ed25519 signed, and re-checkable on the free verify routes.',
    },
    servers: [{ url: baseUrl }],
    tags: [{ name: 'Service' }, ...Object.values(FAMILIES).map((name) => ({ name }))],
    components: {
      securitySchemes: {
        x402: { type: 'apiKey', in: 'header', name: 'PAYMENT-SIGNATURE', description: 'x402 v2 payment payload (base64 JSON); X-PAYMENT for v1 clients.' },
      },
      schemas: { Error: errorBody },
    },
    paths,
  };
}
