import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { useTestService } from '../support/service.ts';

/** Sends a request target exactly as written (fetch would normalise it). */
function raw(base: string, method: string, target: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path: target }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

// Routes without parameters are answered from an exact-match table before the router; anything
// that is not an exact hit must be answered exactly as the router alone would answer it.
describe('routing: the exact-match table and the router agree', () => {
  const service = useTestService();

  it('an exact path, the same path in other case or with a trailing slash, reach the same handler', async () => {
    for (const target of ['/health', '/HEALTH', '/health/']) {
      const res = await raw(service.url, 'GET', target);
      expect([target, res.status, JSON.parse(res.body)]).toEqual([target, 200, { status: 'ok' }]);
    }
  });

  it('a verify route answers the same through the table and through the router', async () => {
    const query = '?kind=model-eval&attested_at=1767225600&claim=%7B%7D&sha256=00&signature=00';
    const exact = await raw(service.url, 'GET', `/v1/veritrack/verify${query}`);
    const routed = await raw(service.url, 'GET', `/v1/veritrack/verify/${query}`);
    expect(exact.status).toBe(200);
    expect(JSON.parse(routed.body)).toEqual(JSON.parse(exact.body));
    expect(JSON.parse(exact.body)).toMatchObject({ valid: false, family: 'veritrack' });
  });

  it('the wrong method is 405, HEAD is served, a path with parameters goes to the router', async () => {
    expect((await raw(service.url, 'POST', '/health')).status).toBe(405);
    expect((await raw(service.url, 'HEAD', '/health')).status).toBe(200);
    const readBack = await raw(service.url, 'GET', '/v1/data/c2pa/attestation/no-such-id');
    expect(readBack.status).toBe(200);
    expect(JSON.parse(readBack.body)).toEqual({ found: false, attestation_id: 'no-such-id' });
  });

  it('a query parameter given twice is refused, whichever way the route was reached', async () => {
    for (const path of ['/v1/veritrack/verify', '/v1/veritrack/verify/']) {
      const res = await raw(service.url, 'GET', `${path}?kind=a&kind=b&attested_at=1&claim=%7B%7D&sha256=00&signature=00`);
      expect(res.status).toBe(422);
      expect(res.body).toContain('must be given once');
    }
  });
});

describe('methods the service does not take', () => {
  const service = useTestService();
  // fetch refuses to send TRACE: plain node:http does.
  const send = (method: string, path: string) =>
    new Promise<{ status: number; allow: string | undefined }>((resolve, reject) => {
      const req = request(`${service.url}${path}`, { method }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode!, allow: res.headers['allow'] }));
      });
      req.on('error', reject);
      req.end();
    });
  it.each(['TRACE', 'QUERY', 'PUT', 'DELETE', 'PATCH'])('%s on a known path is 405 with Allow, never 501', async (method) => {
    const paid = await send(method, '/v1/veritrack/attest');
    expect(paid.status).toBe(405);
    expect(paid.allow).toContain('POST');
    const free = await send(method, '/v1/governance/state/some-agent');
    expect(free.status).toBe(405);
    expect(free.allow).toContain('GET');
  });

  it('an unknown method on an unknown path is 404', async () => {
    expect((await send('TRACE', '/v1/nothing-here')).status).toBe(404);
  });
});
