import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestService } from '../support/service.ts';

const service = useTestService({ HEADERS_TIMEOUT_MS: '500', REQUEST_TIMEOUT_MS: '800', KEEP_ALIVE_TIMEOUT_MS: '300' });

/** Opens a raw connection, writes `text`, and resolves with what came back and how long the server kept it open. */
function slowClient(text: string): Promise<{ answer: string; openMs: number }> {
  const { port } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let answer = '';
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => resolve({ answer, openMs: Date.now() - started }));
    socket.on('error', reject);
    setTimeout(() => reject(new Error('the server kept a stalled connection open for 10 s')), 10_000).unref();
  });
}

describe('server timeouts (settings)', () => {
  it('closes a connection whose headers never finish (slowloris) after HEADERS_TIMEOUT_MS', async () => {
    const { openMs } = await slowClient('GET /health HTTP/1.1\r\nHost: x\r\n');
    expect(openMs).toBeLessThan(4_000);
  });

  it('answers 408 to a body that never finishes, after REQUEST_TIMEOUT_MS', async () => {
    const { answer, openMs } = await slowClient('POST /v1/veritrack/attest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"kind":');
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toContain('"error":"request_timeout"');
    expect(openMs).toBeLessThan(4_000);
  });

  it('closes an idle keep-alive connection after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const { answer, openMs } = await slowClient('GET /health HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(openMs).toBeLessThan(3_000);
  });
});
