import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MCP_MAX_BATCH } from '../../src/mcp/endpoint.ts';
import { createPayingFetch } from '../support/paying-client.ts';
import { useTestService } from '../support/service.ts';

const service = useTestService();
const pay = createPayingFetch();

type Problem = { error: string; message: string; issues?: Array<{ path: string; message: string }> };
const post = (path: string, body: string | Uint8Array, headers: Record<string, string> = {}, fetcher: typeof fetch = fetch) =>
  fetcher(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
const latin1 = (text: string) => Buffer.from(text, 'latin1');

describe('what the service signs is what the caller sent: bytes that are not UTF-8 are refused, not replaced', () => {
  it('a JSON body in Latin-1 is a 422 naming the byte and its offset, before any quote, whatever the charset parameter says', async () => {
    for (const type of ['application/json', 'application/json; charset=iso-8859-1']) {
      const res = await post('/v1/veritrack/attest', latin1('{"kind":"x","claim":{"city":"Orléans"}}'), { 'content-type': type });
      expect(res.status).toBe(422);
      const problem = (await res.json()) as Problem;
      expect(problem.issues?.[0]).toMatchObject({ path: '(body)' });
      expect(problem.issues?.[0]?.message).toContain('the byte 0xE9 at offset 32');
      expect(res.headers.get('payment-required')).toBeNull();
    }
  });

  it('UTF-8 is signed as sent, a leading byte order mark dropped', async () => {
    const text = '{"kind":"x","claim":{"city":"Orléans","clef":"𝄞"}}';
    const res = await post('/v1/veritrack/attest', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), {}, pay);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { claim: unknown }).claim).toEqual({ city: 'Orléans', clef: '𝄞' });
  });

  it('a query parameter whose percent-encoded bytes are not UTF-8 is a 422 naming it, on a priced route and on a verify route', async () => {
    const priced = await fetch(`${service.url}/v1/signed-research?topic=caf%E9`);
    expect(priced.status).toBe(422);
    expect(((await priced.json()) as Problem).issues).toEqual([{ path: 'topic', message: expect.stringContaining('not percent-encoded UTF-8') }]);

    const verify = await fetch(`${service.url}/v1/veritrack/verify?kind=x&attested_at=1767225600&signature=00&sha256=00&claim=%7B%22a%22%3A%22%ED%A0%80%22%7D`);
    expect(verify.status).toBe(422);
    expect(((await verify.json()) as Problem).issues?.[0]?.path).toBe('claim');
  });

  it('a literal % and well-formed percent-encoding are read as before', async () => {
    const literal = await fetch(`${service.url}/v1/signed-research?topic=100%`);
    expect(literal.status).toBe(402);
    const encoded = await fetch(`${service.url}/v1/signed-research?topic=${encodeURIComponent('café momentum')}`);
    expect(encoded.status).toBe(402);
  });
});

describe('a compressed body is refused with 415, not misread', () => {
  it.each([
    ['a JSON body', '/v1/veritrack/attest', 'application/json'],
    ['an upload', '/v1/invoice-ocr', 'multipart/form-data; boundary=x'],
  ])('%s sent with Content-Encoding: gzip is 415 with Accept-Encoding: identity', async (_, path, type) => {
    const res = await post(path, gzipSync('{"kind":"x","claim":{}}'), { 'content-type': type, 'content-encoding': 'gzip' });
    expect(res.status).toBe(415);
    expect(res.headers.get('accept-encoding')).toBe('identity');
    expect(((await res.json()) as Problem).message).toContain('Content-Encoding gzip');
  });

  it('Content-Encoding: identity is no coding at all', async () => {
    const res = await post('/v1/veritrack/attest', '{"kind":"x","claim":{}}', { 'content-encoding': 'identity' });
    expect(res.status).toBe(402);
  });
});

describe('on the MCP endpoint what the service will not read is a JSON-RPC error', () => {
  const mcp = (body: string | Uint8Array) => post('/mcp', body, { accept: 'application/json, text/event-stream' });
  type RpcError = { jsonrpc: string; id: null; error: { code: number; message: string; data: Problem } };

  it('malformed JSON and bytes that are not UTF-8 are parse errors (-32700, HTTP 400)', async () => {
    for (const body of ['{"jsonrpc":"2.0","id":1,', latin1('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"é"}}')]) {
      const res = await mcp(body);
      expect(res.status).toBe(400);
      const answer = (await res.json()) as RpcError;
      expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700, data: { error: 'validation_error' } } });
    }
  });

  it('a plain JSON-RPC client that accepts only JSON (or anything) is answered, since every answer here is one JSON body', async () => {
    for (const accept of ['application/json', '*/*', undefined]) {
      const res = await fetch(`${service.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) },
        body: '{"jsonrpc":"2.0","id":7,"method":"tools/list"}',
      });
      expect(res.status, String(accept)).toBe(200);
      expect(((await res.json()) as { id: number; result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(40);
    }
    const refused = await post('/mcp', '{"jsonrpc":"2.0","id":7,"method":"tools/list"}', { accept: 'text/html' });
    expect(refused.status).toBe(406);
  });

  it('GET, DELETE and HEAD are 405 with Allow: the stateless endpoint opens no SSE stream that a client could hold open for free', async () => {
    for (const method of ['GET', 'DELETE', 'HEAD']) {
      const res = await fetch(`${service.url}/mcp`, { method, headers: { accept: 'text/event-stream' }, signal: AbortSignal.timeout(5_000) });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST, OPTIONS');
      if (method !== 'HEAD') expect(((await res.json()) as RpcError).error.code).toBe(-32600);
    }
  });

  it(`a batch of more than ${MCP_MAX_BATCH} messages is an invalid request (-32600, HTTP 400), before any is answered; ${MCP_MAX_BATCH} are answered`, async () => {
    const batch = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' })));
    const refused = await mcp(batch(100));
    expect(refused.status).toBe(400);
    const answer = (await refused.json()) as RpcError;
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, data: { error: 'batch_too_large' } } });
    expect(answer.error.message).toContain(`a batch of 100 JSON-RPC messages: at most ${MCP_MAX_BATCH}`);

    const served = await mcp(batch(MCP_MAX_BATCH));
    expect(served.status).toBe(200);
    const answers = (await served.json()) as Array<{ id: number; result: { tools: unknown[] } }>;
    expect(answers.map((a) => a.id).sort((a, b) => a - b)).toEqual(Array.from({ length: MCP_MAX_BATCH }, (_, i) => i));
  });

  it("params their method's schema refuses are invalid params (-32602, HTTP 422) naming the field and echoing the id, not the SDK's internal error", async () => {
    const cases: Array<[string, unknown, string]> = [
      ['tools/call', { name: 'veritrack_attest', arguments: 'x' }, 'params.arguments'],
      ['tools/call', { name: 5 }, 'params.name'],
      ['tools/list', { cursor: 5 }, 'params.cursor'],
      ['initialize', { protocolVersion: 5, capabilities: {}, clientInfo: { name: 'c', version: '1' } }, 'params.protocolVersion'],
    ];
    for (const [method, params, path] of cases) {
      const res = await mcp(JSON.stringify({ jsonrpc: '2.0', id: 'req-7', method, params }));
      expect(res.status, method).toBe(422);
      const answer = (await res.json()) as Omit<RpcError, 'id'> & { id: string };
      expect(answer).toMatchObject({ jsonrpc: '2.0', id: 'req-7', error: { code: -32602, data: { error: 'validation_error' } } });
      expect(answer.error.data.issues?.[0]?.path).toBe(path);
      expect(answer.error.message).toContain(`invalid params (${path}:`);
    }
    // In a batch nothing is run: the whole batch is refused, naming the message.
    const batch = await mcp(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'veritrack_attest', arguments: [] } }]));
    expect(batch.status).toBe(422);
    const refused = (await batch.json()) as RpcError;
    expect(refused).toMatchObject({ id: null, error: { code: -32602 } });
    expect(refused.error.data.issues?.[0]?.path).toBe('[1].params.arguments');
    expect(refused.error.message).toContain('nothing in the batch was run');
    // Well-formed requests, and methods this server does not answer, are the SDK's as before.
    expect((await mcp('{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}')).status).toBe(200);
    const unknown = (await (await mcp('{"jsonrpc":"2.0","id":4,"method":"resources/list","params":{"cursor":5}}')).json()) as { error: { code: number } };
    expect(unknown.error.code).toBe(-32601);
  });

  it('an argument a signature could not carry is invalid params (-32602), naming it', async () => {
    const res = await mcp('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"veritrack_attest","arguments":{"kind":"x","claim":{"n":12345678901234567890}}}}');
    expect(res.status).toBe(422);
    const answer = (await res.json()) as RpcError;
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.data.issues?.[0]?.path).toBe('params.arguments.claim.n');
  });
});
