import { describe, expect, it } from 'vitest';
import { createPayingFetch } from '../support/paying-client.ts';
import { useTestService } from '../support/service.ts';

const service = useTestService();
const pay = createPayingFetch();
const attest = (text: string, fetcher: typeof fetch = fetch) =>
  fetcher(`${service.url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });

describe('input a signature cannot carry faithfully is refused, not altered (I-JSON)', () => {
  it.each([
    ['an integer beyond 2^53 - 1', '{"kind":"x","claim":{"n":12345678901234567890}}', 'claim.n', /as a string/],
    ['a lone surrogate', '{"kind":"x","claim":{"s":"\\ud800"}}', 'claim.s', /lone surrogate/],
    ['a duplicate member name', '{"kind":"x","kind":"y","claim":{}}', 'kind', /duplicate/],
  ])('%s on a paid route: 422 naming the member, before any quote', async (_, text, path, message) => {
    const res = await attest(text);
    expect(res.status).toBe(422);
    const body = (await res.json()) as { issues: Array<{ path: string; message: string }> };
    expect(body.issues[0]).toMatchObject({ path });
    expect(body.issues[0]!.message).toMatch(message);
  });

  it.each([
    ['an integer beyond 2^53 - 1', '{"n":12345678901234567890}', 'claim.n'],
    ['a lone surrogate', '{"s":"\\ud800"}', 'claim.s'],
    ['a duplicate member name', '{"a":1,"a":2}', 'claim.a'],
  ])('%s in a verify route JSON parameter: 422 naming the member', async (_, claim, path) => {
    const qs = new URLSearchParams({ kind: 'x', attested_at: '1767225600', signature: '00', sha256: '00', claim });
    const res = await fetch(`${service.url}/v1/veritrack/verify?${qs}`);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { issues: Array<{ path: string }> }).issues[0]!.path).toBe(path);
  });

  it('an integer parameter has one spelling: leading zeros, or digits beyond 2^53 - 1, are 422', async () => {
    for (const attested_at of ['01767225600', '0001767225600', '9999999999999999', '-0']) {
      const qs = new URLSearchParams({ kind: 'x', attested_at, signature: '00', sha256: '00', claim: '{}' });
      const res = await fetch(`${service.url}/v1/veritrack/verify?${qs}`);
      expect(res.status, attested_at).toBe(422);
      expect(((await res.json()) as { issues: Array<{ path: string }> }).issues[0]!.path).toBe('attested_at');
    }
    const qs = new URLSearchParams({ kind: 'x', attested_at: '0', signature: '00', sha256: '00', claim: '{}' });
    expect((await fetch(`${service.url}/v1/veritrack/verify?${qs}`)).status).toBe(200);
  });

  it('a record sent as JSON text nested deeper than any signed record is 422, not a stack overflow', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const res = await fetch(`${service.url}/v1/mcp/verify/uptime/recheck`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ body: deep, sha256: '00', signature: '00' }) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { issues: Array<{ path: string; message: string }> }).issues[0]).toMatchObject({ path: 'body', message: expect.stringMatching(/must not nest deeper than 40 levels/) });
  });

  it('a __proto__ member is refused 422, before the quote, on paid routes, verify routes and MCP alike; constructor is an ordinary member', async () => {
    const res = await attest('{"kind":"proto-test","claim":{"__proto__":{"admin":true},"n":1}}');
    expect(res.status).toBe(422);
    expect(((await res.json()) as { issues: Array<{ path: string; message: string }> }).issues[0]).toMatchObject({ path: 'claim.__proto__', message: expect.stringContaining('"__proto__" is refused') });
    const qs = new URLSearchParams({ kind: 'x', attested_at: '1767225600', signature: '00', sha256: '00', claim: '{"__proto__":{"admin":true}}' });
    expect((await fetch(`${service.url}/v1/veritrack/verify?${qs}`)).status).toBe(422);
    const mcp = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"veritrack.attest","arguments":{"kind":"x","claim":{"__proto__":{"admin":true}}}}}',
    });
    expect(mcp.status).toBe(422);

    const ordinary = await attest('{"kind":"proto-test","claim":{"constructor":"c","prototype":{"admin":true},"n":1}}', pay);
    expect(ordinary.status).toBe(200);
    const text = await ordinary.text();
    expect(text).toContain('"constructor":"c"');
    const result = JSON.parse(text) as { kind: string; attestedAt: number; sha256: string; ed25519Sig: string };
    const verified = new URLSearchParams({
      kind: result.kind,
      attested_at: String(result.attestedAt),
      sha256: result.sha256,
      signature: result.ed25519Sig,
      claim: '{"constructor":"c","n":1,"prototype":{"admin":true}}',
    });
    expect(await (await fetch(`${service.url}/v1/veritrack/verify?${verified}`)).json()).toMatchObject({ valid: true });
  });
});
