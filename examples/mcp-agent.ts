/**
 * An agent on the MCP side: connects with the official MCP client, lists the tools, pays one
 * tool call with a wallet (the x402 MCP transport), and checks the signed result offline.
 *
 *   npm start                                   # in another terminal (local settlement: no funds move)
 *   npx tsx examples/mcp-agent.ts               # BASE_URL defaults to http://localhost:4021
 *   PRIVATE_KEY=0x... npx tsx examples/mcp-agent.ts
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PaymentRequired } from '@x402/core/types';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { x402Client } from '@x402/fetch';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { canonicalBytes } from '../src/signing/rfc8785.ts';

const baseUrl = (process.env['BASE_URL'] ?? 'http://localhost:4021').replace(/\/+$/, '');

// Before anything else: a refused connection (the service not started, or still compiling
// dist/ on its first start) would otherwise end in fetch's stack trace.
try {
  await fetch(`${baseUrl}/health`);
} catch {
  console.error(`no service answers at ${baseUrl}: start it with \`npm start\` in another terminal, wait for its "Listening on" line and run this again (or set BASE_URL)`);
  process.exit(1);
}
const account = privateKeyToAccount((process.env['PRIVATE_KEY'] as Hex | undefined) ?? generatePrivateKey());
// The official x402 client signs the payment; its default cap is $1 per call, raised here.
const wallet = new x402Client().register('eip155:8453', new ExactEvmScheme(account)).setSpendControls({ maxAmountPerPayment: '$29' });

const client = new Client({ name: 'example-agent', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)));
const { tools } = await client.listTools();
console.log(`${tools.length} tools, e.g. ${tools.slice(0, 5).map((t) => t.name).join(', ')}`);

const args = { kind: 'model-eval', claim: { model: 'example-7b', benchmark: 'arc-easy', score: 0.81 } };
const quote = await client.callTool({ name: 'veritrack_attest', arguments: args });
if (!quote.isError) throw new Error('expected the payment-required result');
const payment = await wallet.createPaymentPayload(quote.structuredContent as unknown as PaymentRequired);
const paid = await client.callTool({ name: 'veritrack_attest', arguments: args, _meta: { 'x402/payment': payment } });
if (paid.isError) throw new Error(`not paid: ${JSON.stringify(paid.structuredContent)}`);
console.log('settlement:', paid._meta?.['x402/payment-response']);

// Offline check: the record is {kind, attestedAt, claim}; its RFC 8785 bytes are hashed and signed.
const result = paid.structuredContent as { kind: string; attestedAt: number; claim: unknown; sha256: string; ed25519Sig: string; publicKeyUrl: string };
const record = { kind: result.kind, attestedAt: result.attestedAt, claim: result.claim };
const bytes = canonicalBytes(record);
const { publicKey } = (await (await fetch(result.publicKeyUrl.replace(/^https?:\/\/[^/]+/, baseUrl))).json()) as { publicKey: string };
const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(publicKey, 'hex')]), format: 'der', type: 'spki' });
console.log('sha256 matches:', createHash('sha256').update(bytes).digest('hex') === result.sha256);
console.log('signature valid:', verify(null, bytes, key, Buffer.from(result.ed25519Sig, 'hex')));
await client.close();
