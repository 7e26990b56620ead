import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MAX_HEADER_BYTES } from '../../src/kernel/limits.ts';
import { useTestService } from '../support/service.ts';

const service = useTestService();

/** Sends raw bytes on a fresh connection and returns everything the server writes before it closes. */
function raw(text: string): Promise<string> {
  const { hostname, port } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

type Problem = { error: string; message: string; requestId: string };

describe("what Node's HTTP parser refuses is answered with the service's error body", () => {
  it('a request line and headers over the limit: 431 naming the limit and the way out, with a request id', async () => {
    const res = await fetch(`${service.url}/v1/veritrack/verify?kind=x&attested_at=1&signature=00&sha256=00&claim=${'a'.repeat(MAX_HEADER_BYTES + 1)}`);
    expect(res.status).toBe(431);
    const problem = (await res.json()) as Problem;
    expect(problem.error).toBe('headers_too_large');
    expect(problem.message).toContain(`more than ${MAX_HEADER_BYTES} bytes`);
    expect(problem.message).toContain('JSON body');
    expect(res.headers.get('x-request-id')).toBe(problem.requestId);
  });

  it('a request that is not HTTP/1.1: 400 with a JSON body, and the connection closed', async () => {
    const answer = await raw('NOT AN HTTP REQUEST\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain('Connection: close');
    const problem = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Problem;
    expect(problem).toMatchObject({ error: 'bad_request', message: expect.stringContaining('not well-formed HTTP/1.1') });
  });

  it('the same service still answers well-formed requests after both', async () => {
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
  });
});
