import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../catalog/index.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst, tampers, verifyBody } from '../../../../test/support/http.ts';

const service = useTestService({ MEMORY_VALUE_CAP_BYTES: '1024' });

const store = { agent_id: 'did:web:agent.example', key: 'prefs' };

describe('memory over HTTP', () => {
  it('quotes a put and a get with 402 (no payment attached)', async () => {
    expect((await postJson(`${service.url}/v1/memory/put`, { ...store, value: { a: 1 } })).status).toBe(402);
    expect((await postJson(`${service.url}/v1/memory/get`, store)).status).toBe(402);
  });

  it('answers a value one byte over the cap 422 BUDGET-EXCEEDED, free, and stores nothing', async () => {
    const over = await postJson(`${service.url}/v1/memory/put`, { ...store, key: 'big', value: 'x'.repeat(1023) });
    expect(over.status).toBe(422);
    expect(over.body).toMatchObject({ outcome: 'BUDGET-EXCEEDED', issues: [{ path: 'value' }] });
    expect(over.headers.get('payment-required')).toBeNull();
    expect((await postJson(`${service.url}/v1/memory/put`, { ...store, key: 'big', value: 'x'.repeat(1022) })).status).toBe(402);
    const got = await runAgainst(service, 'memory.get', { ...store, key: 'big' });
    expect(got.record).toMatchObject({ outcome: 'NOT-FOUND' });
  });

  it('answers bad input 422 with the field and the reason', async () => {
    const missing = await postJson(`${service.url}/v1/memory/put`, { agent_id: 'a', key: 'k' });
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ outcome: 'INVALID-INPUT', issues: [{ path: 'value', message: 'is required' }] });
    const spaced = await postJson(`${service.url}/v1/memory/get`, { agent_id: 'has space', key: 'k', version: 0 });
    expect(spaced.status).toBe(422);
    expect((spaced.body.issues as Array<{ path: string }>).map((i) => i.path).sort()).toEqual(['agent_id', 'version']);
  });

  it('re-checks put and get results on /v1/memory/verify, and fails every tamper', async () => {
    const put = await runAgainst(service, 'memory.put', { ...store, value: { theme: 'dark' } });
    const get = await runAgainst(service, 'memory.get', store);
    expect((await verifyBody(service, 'GET', '/v1/memory/verify', put.record, put.seal.sha256, put.seal.ed25519Sig)).valid).toBe(true);
    expect((await verifyBody(service, 'GET', '/v1/memory/verify', get.record, get.seal.sha256, get.seal.ed25519Sig)).valid).toBe(true);
    for (const t of tampers(put.record as Record<string, JsonObject[string]>, put.seal.sha256, put.seal.ed25519Sig)) {
      const result = await verifyBody(service, 'GET', '/v1/memory/verify', t.record, t.sha256, t.signature);
      expect(result.valid, t.name).toBe(false);
    }
  });
});

describe('memory catalogue examples', () => {
  it("the get example reads back what the put example stores, for the same payer; on a fresh store it is NOT-FOUND", async () => {
    const put = findOperation('memory.put')!;
    const get = findOperation('memory.get')!;
    const payer = '0x5555555555555555555555555555555555555555';
    expect((await runAgainst(service, get.id, get.example, { payer })).record).toMatchObject({ outcome: 'NOT-FOUND' });
    await runAgainst(service, put.id, put.example, { payer });
    expect((await runAgainst(service, get.id, get.example, { payer })).record).toMatchObject({ version: 1, value: (put.example as JsonObject).value });
  });
});
