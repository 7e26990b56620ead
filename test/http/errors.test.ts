import { describe, expect, it } from 'vitest';
import { useTestService } from '../support/service.ts';

describe('one error body for the whole service', () => {
  const service = useTestService();

  const post = (path: string, body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${service.url}${path}`, { method: 'POST', headers, body });

  it('unknown route -> 404 JSON with error, message and the request id', async () => {
    const res = await fetch(`${service.url}/v1/nothing-here`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: string; requestId: string };
    expect(body).toMatchObject({ error: 'not_found' });
    expect(body.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('malformed JSON -> 422 naming the body', async () => {
    const res = await post('/v1/veritrack/attest', '{"kind": "x", ');
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ error: 'validation_error', issues: [{ path: '(body)', message: 'malformed JSON' }] });
  });

  it('a body over 1 MiB -> 413, before anything else', async () => {
    const res = await post('/v1/veritrack/attest', JSON.stringify({ kind: 'x', claim: { pad: 'a'.repeat(1024 * 1024 + 10) } }));
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'payload_too_large' });
  });

  it('a JSON body that is not an object, or the wrong content type -> 422', async () => {
    expect((await post('/v1/veritrack/attest', '[1,2]')).status).toBe(422);
    expect((await post('/v1/veritrack/attest', 'kind=x', { 'content-type': 'text/plain' })).status).toBe(422);
  });

  it('a claim nested deeper than 32 levels is refused with the reason', async () => {
    let claim: unknown = { leaf: true };
    for (let i = 0; i < 40; i++) claim = { deeper: claim };
    const res = await post('/v1/veritrack/attest', JSON.stringify({ kind: 'x', claim }));
    expect(res.status).toBe(422);
    expect(JSON.stringify(await res.json())).toContain('32 levels');
  });

  it('absurdly deep nesting is a 422 on its field, never a stack overflow', async () => {
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    const res = await post('/v1/veritrack/attest', `{"kind":"x","claim":${deep}}`);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ issues: [{ path: 'claim' }] });
  });

  it('a query parameter given twice -> 422', async () => {
    const res = await fetch(`${service.url}/v1/veritrack/verify?kind=a&kind=b&attested_at=1&signature=x&sha256=y`);
    expect(res.status).toBe(422);
  });

  it('keeps a well-formed caller request id and echoes it', async () => {
    const res = await fetch(`${service.url}/health`, { headers: { 'x-request-id': 'trace-abc-12345' } });
    expect(res.headers.get('x-request-id')).toBe('trace-abc-12345');
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('/config publishes public settings and never a secret', async () => {
    const text = await (await fetch(`${service.url}/config`)).text();
    const config = JSON.parse(text);
    expect(config).toMatchObject({ network: 'eip155:8453', settlement: 'local', limits: { jsonBodyBytes: 1048576, memoryValueCapBytes: 65536 } });
    expect(Object.keys(config.prices)).toHaveLength(40);
    expect(text).not.toContain(service.deps.settings.ATTESTATION_SECRET!);
    expect(text.toLowerCase()).not.toContain('secret');
    expect(text.toLowerCase()).not.toContain('private');
  });
});
