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

/**
 * A Koa path parameter: a letter or _, then letters, digits or _ (`:sha256`), or a wildcard that
 * spans the rest of the path, slashes included (`*tile`).
 */
const PATH_PARAMETER = /[:*]([A-Za-z_][A-Za-z0-9_]*)/g;
const toOpenApiPath = (path: string) => path.replace(PATH_PARAMETER, '{$1}');

const ERROR_REF: JsonObject = { $ref: '#/components/schemas/Error' };
const errorResponse = (description: string): JsonObject => ({ description, content: { 'application/json': { schema: ERROR_REF } } });

/**
 * zod writes a schema's shared parts under its own `$defs`, referenced as `#/$defs/...`: inside
 * an OpenAPI document those references point nowhere. Each one moves to components/schemas under
 * a name prefixed with its operation, and every reference to it follows.
 */
class SharedSchemas {
  readonly components: Record<string, JsonObject> = {};

  adopt(schema: JsonObject, owner: string): JsonObject {
    const { $defs, $schema: _dialect, ...rest } = schema as JsonObject & { $defs?: Record<string, JsonObject>; $schema?: string };
    if (!$defs) return rest;
    const names = new Map(Object.keys($defs).map((name) => [name, `${owner.replace(/[^A-Za-z0-9._-]/g, '_')}.${name}`]));
    const rewrite = (value: JsonValue): JsonValue => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value === null || typeof value !== 'object') return value;
      const out: JsonObject = {};
      for (const [key, member] of Object.entries(value)) {
        const target = key === '$ref' && typeof member === 'string' ? names.get(member.replace('#/$defs/', '')) : undefined;
        out[key] = target ? `#/components/schemas/${target}` : rewrite(member);
      }
      return out;
    };
    for (const [name, def] of Object.entries($defs)) this.components[names.get(name)!] = rewrite(def) as JsonObject;
    return rewrite(rest) as JsonObject;
  }
}

function parametersOf(route: Route, shared: SharedSchemas): JsonObject[] {
  // A path parameter is documented with the pattern its route validates it against.
  const declared = route.input ? (((shared.adopt(inputJsonSchema(route.input), `${route.id}.path`).properties ?? {}) as Record<string, JsonObject>)) : {};
  const pathParams = [...route.path.matchAll(PATH_PARAMETER)].map((m) => ({ name: m[1]!, in: 'path', required: true, schema: declared[m[1]!] ?? { type: 'string' } }));
  const queryFrom = route.kind === 'priced' ? route.inputFrom === 'query' : route.inputFrom === 'query' || route.inputFrom === 'query-or-json' || route.inputFrom === 'query-or-path';
  if (!queryFrom || !route.input) return pathParams;
  const schema = shared.adopt(inputJsonSchema(route.input), `${route.id}.query`);
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((schema.required ?? []) as string[]);
  const inPath = new Set(pathParams.map((p) => p.name));
  const query = Object.entries(properties)
    .filter(([name]) => !inPath.has(name))
    .map(([name, s]) => ({ name, in: 'query', required: required.has(name), schema: s }));
  return [...pathParams, ...query];
}

function requestBodyOf(route: Route, shared: SharedSchemas): JsonObject | undefined {
  if (!route.input) return undefined;
  if (route.kind === 'priced' && route.inputFrom === 'multipart')
    return { required: true, content: { 'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } } } } };
  const fromBody = route.kind === 'priced' ? route.inputFrom === 'json' : route.inputFrom === 'json' || route.inputFrom === 'query-or-json';
  if (!fromBody) return undefined;
  const example: JsonObject = route.kind === 'priced' ? { example: route.example as JsonValue } : {};
  return { required: route.kind === 'priced' || route.inputFrom === 'json', content: { 'application/json': { schema: shared.adopt(inputJsonSchema(route.input), `${route.id}.input`), ...example } } };
}

function operationOf(route: Route, settings: Settings, shared: SharedSchemas): JsonObject {
  const responses: JsonObject = {
    '200': route.kind === 'free' && route.produces
      ? { description: 'OK', content: { [route.produces]: { schema: { type: 'string' } } } }
      : { description: 'OK', content: { 'application/json': { schema: shared.adopt(outputJsonSchema(route.output), `${route.id}.output`) } } },
  };
  if (route.input || route.path.includes(':')) responses['422'] = errorResponse('Validation error (nothing charged)');
  // Every route refuses the methods it does not take.
  responses['405'] = { ...errorResponse('Method not allowed; Allow lists the methods this path takes'), headers: { Allow: { schema: { type: 'string' } } } };
  const planned = route.kind === 'priced' ? !route.command : route.planned === true;
  if (planned) responses['501'] = errorResponse('Catalogued, not built yet');
  const op: JsonObject = {
    operationId: route.id,
    summary: route.summary,
    description: route.description,
    tags: [route.family === 'service' ? 'Service' : FAMILIES[route.family]],
    parameters: parametersOf(route, shared),
    responses,
    'x-status': planned ? 'not_implemented' : 'available',
  };
  const body = requestBodyOf(route, shared);
  if (body) op.requestBody = body;
  if (route.kind === 'priced') {
    responses['402'] = {
      description: 'Payment required: the x402 v2 quote is in the PAYMENT-REQUIRED header (base64 JSON); the body carries the v1 form.',
      headers: { 'PAYMENT-REQUIRED': { schema: { type: 'string' }, description: 'Base64 of the x402 v2 PaymentRequired JSON' } },
      content: { 'application/json': { schema: { type: 'object' } } },
    };
    op['x-price'] = route.priceUsd;
    op['x-price-atomic'] = usdToAtomic(route.priceUsd).toString();
    op['x-payment'] = paymentRequirements(route, settings);
    op.security = [{ x402: [] }];
    responses['409'] = errorResponse('The payment identifier was first used with another payment (nothing charged)');
    responses['503'] = { ...errorResponse('The call cannot complete now; the message says whether the payment was taken, and a retry with the same payment completes it'), headers: { 'Retry-After': { schema: { type: 'integer' } } } };
  } else {
    // Free: no payment, no credentials.
    op.security = [];
  }
  return op;
}

/** OpenAPI 3.1.0, generated from the catalogue: every route, its schemas, its 402 and 422. */
export function openApiDocument(routes: readonly Route[], settings: Settings, baseUrl: string): JsonObject {
  const paths: Record<string, JsonObject> = {};
  const shared = new SharedSchemas();
  for (const route of routes) {
    const path = toOpenApiPath(route.path);
    paths[path] = { ...(paths[path] ?? {}), [route.method.toLowerCase()]: operationOf(route, settings, shared) };
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
    tags: [
      { name: 'Service', description: 'Health, settings, statistics and the discovery documents (free).' },
      ...Object.values(FAMILIES).map((name) => ({ name, description: `The ${name} family: its priced operations and the free routes that re-check their results.` })),
    ],
    components: {
      securitySchemes: {
        x402: { type: 'apiKey', in: 'header', name: 'PAYMENT-SIGNATURE', description: 'x402 v2 payment payload (base64 JSON); X-PAYMENT for v1 clients.' },
      },
      schemas: { Error: errorBody, ...shared.components },
    },
    paths,
  };
}
