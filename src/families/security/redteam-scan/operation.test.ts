import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { postJson, tampers, verifyBody } from '../../../../test/support/http.ts';
import { redteamScan } from './operation.ts';
import { MAX_OPERATIONS, MAX_PARAMETERS_PER_LIST } from './limits.ts';

const service = useTestService();

describe('red-team authorized scan over HTTP', () => {
  it('quotes with 402 and refuses a proof without a window with 422', async () => {
    expect((await postJson(`${service.url}/v1/security/redteam/authorized-scan`, redteamScan.example)).status).toBe(402);
    const bad = await postJson(`${service.url}/v1/security/redteam/authorized-scan`, { target: 'x', authorization: [{ target: 'x', scope: ['x'], issuer: 'y', signature: 'z' }] });
    expect(bad).toMatchObject({ status: 422, body: { issues: expect.arrayContaining([expect.objectContaining({ path: 'authorization.0.not_before' }), expect.objectContaining({ path: 'authorization.0.not_after' })]) } });
  });

  it('without a proof: a paid, signed refusal that re-checks on POST /v1/security/redteam/recheck; every tamper fails', async () => {
    const pay = createPayingFetch();
    const res = await pay(`${service.url}/v1/security/redteam/authorized-scan`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(redteamScan.example) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { evidenceCore: Record<string, JsonValue>; sha256: string; ed25519Sig: string };
    expect(body.evidenceCore).toMatchObject({ outcome: 'REFUSED', findings: [] });
    expect((await verifyBody(service, 'POST', '/v1/security/redteam/recheck', body.evidenceCore, body.sha256, body.ed25519Sig)).valid).toBe(true);
    for (const t of tampers(body.evidenceCore, body.sha256, body.ed25519Sig)) expect((await verifyBody(service, 'POST', '/v1/security/redteam/recheck', t.record, t.sha256, t.signature)).valid, t.name).toBe(false);
  });

  describe('an OpenAPI document beyond what one review covers is refused before the quote (422 openapi_too_large, nothing to pay)', () => {
    const path = '/v1/security/redteam/authorized-scan';
    const methods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
    const scan = (openapi: Record<string, unknown>) => postJson(`${service.url}${path}`, { target: 'https://api.example.com', authorization: [], artefacts: { openapi } });
    const refused = async (openapi: Record<string, unknown>, message: RegExp) => {
      const answer = await scan(openapi);
      expect(answer).toMatchObject({ status: 422, body: { error: 'openapi_too_large', outcome: 'INVALID-INPUT' } });
      expect(answer.headers.get('payment-required')).toBeNull();
      expect(String(answer.body['message'])).toMatch(message);
    };
    const param = (name: string) => ({ name, in: 'query', schema: { type: 'string' } });
    const pathItem = (parameters: number) => ({ parameters: Array.from({ length: parameters }, () => param('url')), ...Object.fromEntries(methods.map((m) => [m, { responses: {} }])) });

    it('2,000 parameters on a path of 8 operations (110 KB, a 7.3 MB answer before); 100 are quoted', async () => {
      await refused({ openapi: '3.1.0', paths: { '/{id}': pathItem(2_000) } }, /\/\{id\} declares 2000 parameters: at most 100 in one list/);
      expect((await scan({ openapi: '3.1.0', paths: { '/{id}': pathItem(MAX_PARAMETERS_PER_LIST) } })).status).toBe(402);
    });

    it('more operations, parameters in all, servers, a longer path, or nesting deeper than 32 levels', async () => {
      const many = (paths: number, parameters: number) => Object.fromEntries(Array.from({ length: paths }, (_, i) => [`/p${i}`, pathItem(parameters)]));
      await refused({ openapi: '3.1.0', paths: many(Math.ceil((MAX_OPERATIONS + 1) / 8), 0) }, /504 operations: at most 500/);
      await refused({ openapi: '3.1.0', paths: many(21, 100) }, /2100 parameters in all: at most 2000/);
      await refused({ openapi: '3.1.0', servers: Array.from({ length: 51 }, () => ({ url: 'http://a.example' })), paths: {} }, /51 servers: at most 50/);
      await refused({ openapi: '3.1.0', paths: { [`/${'x'.repeat(256)}`]: pathItem(0) } }, /a path of 257 characters: at most 256/);
      const deep = `{"target":"https://api.example.com","artefacts":{"openapi":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}`;
      const answer = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep });
      expect(answer.status).toBe(422);
      expect(await answer.json()).toMatchObject({ issues: [{ path: 'artefacts.openapi', message: 'must not nest deeper than 32 levels' }] });
    });
  });
});
