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

  it('a __proto__ member is an ordinary member: signed as sent, and re-checked valid', async () => {
    const res = await attest('{"kind":"proto-test","claim":{"__proto__":{"admin":true},"constructor":"c","n":1}}', pay);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"__proto__":{"admin":true}');
    const result = JSON.parse(text) as { kind: string; attestedAt: number; sha256: string; ed25519Sig: string };
    const qs = new URLSearchParams({
      kind: result.kind,
      attested_at: String(result.attestedAt),
      sha256: result.sha256,
      signature: result.ed25519Sig,
      claim: '{"__proto__":{"admin":true},"constructor":"c","n":1}',
    });
    expect(await (await fetch(`${service.url}/v1/veritrack/verify?${qs}`)).json()).toMatchObject({ valid: true });
    expect(({} as Record<string, unknown>)['admin']).toBeUndefined();
  });
});
