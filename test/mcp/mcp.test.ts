import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PaymentRequired } from '@x402/core/types';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { afterEach, describe, expect, it } from 'vitest';
import { PAYMENT_REASONS } from '../../src/payments/x402/reasons.ts';
import { useTestService } from '../support/service.ts';
import { signPayment } from '../support/x402-payments.ts';
import { createPayingFetch } from '../support/paying-client.ts';

const service = useTestService();
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

async function connect(url = service.url): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  clients.push(client);
  return client;
}

const input = { kind: 'mcp-eval', claim: { model: 'agent-7b', score: 0.9 } };

describe('the MCP server at /mcp (official SDK client, Streamable HTTP)', () => {
  it('lists every built priced operation and every verify route as tools with valid names and their price', async () => {
    const { tools } = await (await connect()).listTools();
    for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const attest = tools.find((t) => t.name === 'veritrack_attest');
    expect(attest?._meta).toMatchObject({ operationId: 'veritrack.attest', 'x402/price': { usd: '0.25' } });
    expect(attest?.inputSchema.type).toBe('object');
    expect(tools.some((t) => t.name === 'veritrack_verify')).toBe(true);
    expect(tools.some((t) => t.name === 'invoice-ocr')).toBe(false); // takes a file upload: HTTP only
    // /mcp.json says which of its tools the MCP server offers: exactly the priced ones of tools/list.
    const manifest = (await (await fetch(`${service.url}/mcp.json`)).json()) as { tools: Array<{ name: string; overMcp: boolean }> };
    const priced = tools.filter((t) => (t._meta as { 'x402/price'?: unknown } | undefined)?.['x402/price']).map((t) => t.name);
    expect(manifest.tools.filter((t) => t.overMcp).map((t) => t.name).sort()).toEqual([...priced].sort());
    expect(manifest.tools.find((t) => t.name === 'invoice-ocr')?.overMcp).toBe(false);
  });

  it('a priced tool without payment answers the x402 payment-required result; invalid input is a tool error, free', async () => {
    const client = await connect();
    const unpaid = await client.callTool({ name: 'veritrack_attest', arguments: input });
    expect(unpaid.isError).toBe(true);
    const required = unpaid.structuredContent as unknown as PaymentRequired;
    expect(required.x402Version).toBe(2);
    expect(JSON.parse((unpaid.content as Array<{ text: string }>)[0]!.text)).toEqual(unpaid.structuredContent);
    // The same requirements as the HTTP quote.
    const http = await fetch(`${service.url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
    expect(required.accepts).toEqual(decodePaymentRequiredHeader(http.headers.get('payment-required')!).accepts);

    const invalid = await client.callTool({ name: 'veritrack_attest', arguments: { kind: '' } });
    expect(invalid.isError).toBe(true);
    // The issues HTTP's 422 lists for the same input, and nothing else.
    const refusedOverHttp = await fetch(`${service.url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ kind: '' }) });
    const { issues } = (await refusedOverHttp.json()) as { issues: Array<{ path: string; message: string }> };
    expect(issues.length).toBeGreaterThan(0);
    expect(invalid.structuredContent).toEqual({ error: 'validation_error', outcome: 'INVALID-INPUT', issues });
    expect((invalid.content as Array<{ text: string }>)[0]!.text).toBe(`invalid input (nothing charged): ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  });

  it('a free verify tool refuses JSON a signature could not carry as HTTP does: a tool error naming the member, not an internal error', async () => {
    const client = await connect();
    const refused = await client.callTool({ name: 'memory_verify', arguments: { body: '{"a":12345678901234567890}', signature: '00', sha256: '00' } });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: 'validation_error', issues: [{ path: 'body.a', message: expect.stringContaining('2^53') }] });
    const malformed = await client.callTool({ name: 'memory_verify', arguments: { body: 7 } });
    expect(malformed.structuredContent).toMatchObject({ error: 'validation_error', issues: expect.any(Array) });
  });

  it('pays a tool end to end, replays the same payment, verifies the result with the free verify tool, and refuses the payment for another request over HTTP', async () => {
    const client = await connect();
    const unpaid = await client.callTool({ name: 'veritrack_attest', arguments: input });
    const payment = await signPayment(unpaid.structuredContent as unknown as PaymentRequired);
    const paid = await client.callTool({ name: 'veritrack_attest', arguments: input, _meta: { 'x402/payment': payment.payload } });
    expect(paid.isError).toBeFalsy();
    const result = paid.structuredContent as { kind: string; attestedAt: number; claim: unknown; sha256: string; ed25519Sig: string };
    expect(result.claim).toEqual(input.claim);
    expect(paid._meta?.['x402/payment-response']).toMatchObject({ success: true });

    const again = await client.callTool({ name: 'veritrack_attest', arguments: input, _meta: { 'x402/payment': payment.payload } });
    expect(again.structuredContent).toEqual(paid.structuredContent);

    const verified = await client.callTool({
      name: 'veritrack_verify',
      arguments: { kind: result.kind, attested_at: String(result.attestedAt), claim: JSON.stringify(result.claim), sha256: result.sha256, signature: result.ed25519Sig },
    });
    expect(verified.structuredContent).toMatchObject({ valid: true });

    // One payment, one result: the same payment on another request over HTTP is refused.
    const other = await fetch(`${service.url}/v1/veritrack/attest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': payment.header },
      body: JSON.stringify({ kind: 'other', claim: {} }),
    });
    expect(other.status).toBe(402);
    expect(decodePaymentRequiredHeader(other.headers.get('payment-required')!).error).toBe(PAYMENT_REASONS.nonceUsed);
  });

  it('and the other way round: a payment spent over HTTP cannot buy another result over MCP', async () => {
    const client = await connect();
    const quote = (await client.callTool({ name: 'veritrack_attest', arguments: input })).structuredContent as unknown as PaymentRequired;
    const payment = await signPayment(quote);
    const http = await fetch(`${service.url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': payment.header }, body: JSON.stringify(input) });
    expect(http.status).toBe(200);
    const reused = await client.callTool({ name: 'veritrack_attest', arguments: { kind: 'another', claim: {} }, _meta: { 'x402/payment': payment.payload } });
    expect(reused.isError).toBe(true);
    expect(reused.structuredContent).toMatchObject({ error: PAYMENT_REASONS.nonceUsed });
  });
});

describe('a priced tool refused before the quote because the service is busy', () => {
  const busy = useTestService({ ENGINE_THREADS: '1', ENGINE_QUEUE: '0' });

  it('says when to retry, as HTTP says it in Retry-After', async () => {
    const client = await connect(busy.url);
    // A conversion that holds the one engine thread for seconds.
    const holding = createPayingFetch()(`${busy.url}/v1/utils/doc-convert`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'word\n\n'.repeat(16_000), to: 'docx' }) });
    let done = false;
    void holding.then(() => (done = true));
    let refused;
    while (!done && !refused) {
      const answer = await client.callTool({ name: 'utils_doc-convert', arguments: { text: '# Hi', to: 'json' } });
      if ((answer.structuredContent as { error?: string } | undefined)?.error === 'engine_busy') refused = answer;
      else await new Promise((r) => setTimeout(r, 20));
    }
    expect(refused?.isError).toBe(true);
    expect(refused?.structuredContent).toMatchObject({ error: 'engine_busy', retryAfterSeconds: 2 });
    expect((await holding).status).toBe(200);
  }, 60_000);
});
