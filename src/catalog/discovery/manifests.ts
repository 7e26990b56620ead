import type { Settings } from '../../config.ts';
import { bazaarExtension, inputJsonSchema, MAX_TIMEOUT_SECONDS, paymentRequirements, resourceUrl } from '../../payments/x402/quote.ts';
import type { JsonObject } from '../../signing/rfc8785.ts';
import { FAMILIES, usdToAtomic, type PricedOperation } from '../../kernel/operation.ts';

const SERVICE_NAME = 'Pay-per-call attestation service';
const SERVICE_DESCRIPTION =
  'Deterministic, signed attestations and utilities paid per call in USDC on Base with x402 v2. Every result is RFC 8785 canonical JSON, SHA-256 hashed and Ed25519 signed; free routes re-check any result.';

function paymentRail(settings: Settings): JsonObject {
  return {
    protocol: 'x402',
    x402Version: 2,
    scheme: 'exact',
    network: settings.NETWORK,
    asset: settings.USDC_ADDRESS,
    assetName: 'USDC',
    decimals: 6,
    payTo: settings.PAY_TO,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    authorization: 'EIP-3009 transferWithAuthorization',
    requestHeader: 'PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1)',
    responseHeader: 'PAYMENT-RESPONSE',
    settlement: settings.SETTLEMENT,
  };
}

/**
 * A tool name every common LLM function-calling API accepts (^[a-zA-Z0-9_-]{1,64}$): the operation
 * id with its dots as underscores. The id itself stays beside it as operationId.
 */
export function toolNameOf(operationId: string): string {
  return operationId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

/** When this deployment started serving its catalogue: the resources' lastUpdated. */
const SERVING_SINCE = new Date().toISOString();

const priceOf = (op: PricedOperation): JsonObject => ({ usd: op.priceUsd, atomic: usdToAtomic(op.priceUsd).toString(), asset: 'USDC' });

/**
 * Whether the MCP server offers the operation as a tool: built, and taking JSON (a file upload,
 * invoice OCR, is HTTP only: a tool call's arguments are JSON).
 */
export const isMcpTool = (op: PricedOperation): boolean => op.command !== undefined && op.inputFrom !== 'multipart';

/**
 * /mcp.json: each priced operation as a tool over HTTP, with the payment rail; `overMcp` says
 * whether the MCP server at `server.url` offers it too (its tools/list also holds the free verify
 * routes).
 */
export function mcpManifest(ops: PricedOperation[], settings: Settings, baseUrl: string): JsonObject {
  return {
    name: SERVICE_NAME,
    description: SERVICE_DESCRIPTION,
    version: '2.0.0',
    // The MCP server itself: tools/list and tools/call there; priced tools paid per the x402 MCP transport.
    server: { url: `${baseUrl}/mcp`, transport: 'streamable-http', payment: 'x402 MCP transport: _meta["x402/payment"] on tools/call, settlement in _meta["x402/payment-response"]' },
    payment: paymentRail(settings),
    tools: ops.map((op) => ({
      name: toolNameOf(op.id),
      operationId: op.id,
      title: op.summary,
      description: op.description,
      type: 'http',
      method: op.method,
      url: resourceUrl(op, baseUrl),
      inputSchema: inputJsonSchema(op.input),
      price: priceOf(op),
      status: op.command ? 'available' : 'not_implemented',
      overMcp: isMcpTool(op),
      ...(op.verifyPath ? { verifyUrl: `${baseUrl}${op.verifyPath}` } : {}),
    })),
  };
}

/**
 * /.well-known/x402: every priced endpoint with price and settlement terms; the payable ones as
 * items in the bazaar discovery shape, the catalogued-but-unbuilt ones listed apart so that no
 * crawler is led to pay for a 501.
 */
export async function x402Manifest(ops: PricedOperation[], settings: Settings, baseUrl: string): Promise<JsonObject> {
  const item = async (op: PricedOperation): Promise<JsonObject> => ({
    resource: resourceUrl(op, baseUrl),
    type: 'http',
    x402Version: 2,
    method: op.method,
    description: op.summary,
    mimeType: 'application/json',
    accepts: [paymentRequirements(op, settings)],
    lastUpdated: SERVING_SINCE,
    serviceName: SERVICE_NAME,
    price: priceOf(op),
    tags: [FAMILIES[op.family]],
    extensions: (await bazaarExtension(op)) as JsonObject,
  });
  return {
    x402Version: 2,
    manifestVersion: 2,
    service: { name: SERVICE_NAME, description: SERVICE_DESCRIPTION, url: baseUrl },
    settlementTerms: {
      ...paymentRail(settings),
      charged: 'only after the input validates and the authorization verifies; a replayed payment returns the stored result and is never charged twice',
      refunds: 'none needed: nothing is settled for a request that cannot be served',
    },
    items: await Promise.all(ops.filter((op) => op.command).map(item)),
    notImplemented: ops.filter((op) => !op.command).map((op) => ({ resource: resourceUrl(op, baseUrl), method: op.method, price: priceOf(op), status: 'not_implemented' })),
  };
}

/**
 * /.well-known/agent-card.json: the capability card. It lists only interfaces that answer: the
 * HTTP API with its OpenAPI document. The service speaks no A2A transport (no message:send), so
 * the card claims none.
 */
export function agentCard(ops: PricedOperation[], settings: Settings, baseUrl: string): JsonObject {
  return {
    name: SERVICE_NAME,
    description: SERVICE_DESCRIPTION,
    url: baseUrl,
    version: '2.0.0',
    interfaces: [
      { type: 'http', description: 'The HTTP API: every skill is a route, paid per call with x402', url: baseUrl, contract: `${baseUrl}/openapi.json` },
      { type: 'mcp', description: 'Model Context Protocol, Streamable HTTP: every skill is a tool, paid with the x402 MCP transport', url: `${baseUrl}/mcp`, contract: `${baseUrl}/mcp.json` },
    ],
    documentationUrl: `${baseUrl}/openapi.json`,
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: true },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    securitySchemes: { x402: { type: 'apiKey', in: 'header', name: 'PAYMENT-SIGNATURE', description: 'x402 v2 payment per request; no account or key' } },
    payment: paymentRail(settings),
    skills: ops
      .filter((op) => op.command)
      .map((op) => ({ id: op.id, name: op.summary, description: op.description, tags: [FAMILIES[op.family], `price:${op.priceUsd} USD`], inputModes: ['application/json'], outputModes: ['application/json'] })),
  };
}

/** /llms.txt: the service for language models, in the llms.txt markdown convention. */
export function llmsTxt(ops: PricedOperation[], settings: Settings, baseUrl: string): string {
  const lines = [
    `# ${SERVICE_NAME}`,
    '',
    `> ${SERVICE_DESCRIPTION}`,
    '',
    'How to call a priced route: send the request without payment; the 402 answer carries the quote in the PAYMENT-REQUIRED header (base64 JSON, x402 v2).',
    `Sign an EIP-3009 transferWithAuthorization of the quoted USDC amount on ${settings.NETWORK} to ${settings.PAY_TO}, and repeat the identical request with the PAYMENT-SIGNATURE header.`,
    'Every result carries sha256, ed25519Sig and keyId; re-check it free on the verify route named in verifyUrl, or offline with the public key.',
    `Agents: connect an MCP client to ${baseUrl}/mcp (Streamable HTTP). Priced tools answer a payment-required result; retry the call with the signed PaymentPayload in _meta["x402/payment"].`,
    '',
    `- [MCP server](${baseUrl}/mcp)`,
    `- [OpenAPI contract](${baseUrl}/openapi.json)`,
    `- [x402 manifest](${baseUrl}/.well-known/x402)`,
    `- [MCP manifest](${baseUrl}/mcp.json)`,
    '',
  ];
  for (const [family, title] of Object.entries(FAMILIES)) {
    const inFamily = ops.filter((op) => op.family === family);
    if (inFamily.length === 0) continue;
    lines.push(`## ${title}`, '');
    for (const op of inFamily) {
      const status = op.command ? '' : ' (not built yet: answers 501)';
      lines.push(`- [${op.method} ${op.path}](${resourceUrl(op, baseUrl)}): $${op.priceUsd}. ${op.summary}${status}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
