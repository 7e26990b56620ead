import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../src/catalog/index.ts';
import { useTestService } from '../support/service.ts';

const paths = catalog.map((r) => ({ method: r.method, path: r.path.replace(/:([A-Za-z_]+)/g, 'x') }));

const jsonish = fc.oneof(
  fc.json(),
  fc.string(),
  fc.constantFrom('', '{', '[]', 'null', '{"claim":', '{"kind":"a","claim":{}}', '\u0000', '{"__proto__":{"x":1}}'),
  fc.jsonValue().map((v) => JSON.stringify({ kind: 'x', claim: v, body: v })),
);
const queryValue = fc.oneof(fc.string(), fc.integer().map(String), fc.constantFrom('', '%', '%ZZ', '1e999', '{}', '[]', 'null'));
const queryString = fc
  .array(fc.tuple(fc.constantFrom('kind', 'attested_at', 'claim', 'signature', 'sha256', 'body', 'evidence', 'ranking', 'mints_at', 'result', 'topic', 'x'), queryValue), { maxLength: 6 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'));
const headerValue = fc.string({ maxLength: 200 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''));
const headers = fc.record(
  {
    'payment-signature': fc.oneof(headerValue, fc.base64String(), fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v)).toString('base64'))),
    'x-payment': headerValue,
    'content-type': fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', ''),
    'x-request-id': headerValue,
  },
  { requiredKeys: [] },
);

describe('fuzzing every route', () => {
  const service = useTestService();

  it('answers 1,200 random bodies, query strings and headers with no 5xx but 501, and never a stack trace', async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), jsonish, queryString, headers, async (route, body, query, hdrs) => {
        const res = await fetch(`${service.url}${route.path}${query ? `?${query}` : ''}`, {
          method: route.method,
          headers: Object.fromEntries(Object.entries(hdrs).filter(([, v]) => v !== '')),
          body: route.method === 'POST' ? body : undefined,
        });
        const text = await res.text();
        seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
        expect(res.status === 501 || res.status < 500, `${route.method} ${route.path} -> ${res.status}: ${text.slice(0, 300)}`).toBe(true);
        expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }),
      { numRuns: 1200 },
    );
    // The fuzz reaches both accepted and refused inputs, not only one kind of answer.
    expect(seen.has(200) && seen.has(422)).toBe(true);
  }, 120_000);
});
