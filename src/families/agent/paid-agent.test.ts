import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { findOperation } from '../../catalog/index.ts';
import { checkMemoryChain } from './memory/audit-rule.ts';
import { memoryStreamName } from './memory/commands.ts';
import { MEMORY_EVENT_TYPES } from './memory/events.ts';
import { canonicalBytes, type JsonObject, type JsonValue } from '../../signing/rfc8785.ts';
import { sha256Hex } from '../../signing/hash.ts';
import { createPayingFetch } from '../../../test/support/paying-client.ts';
import { postTo, useTestService } from '../../../test/support/service.ts';
import { tampers, verifyBody } from '../../../test/support/http.ts';

/** The five agent operations paid over real HTTP with the official x402 client (local settlement). */

const service = useTestService();
const owner = createPayingFetch();
const intruder = createPayingFetch();

async function paid(path: string, body: unknown, fetcher: typeof fetch = owner): Promise<JsonObject> {
  const res = await postTo(service, path, body, fetcher);
  const json = (await res.json()) as JsonObject;
  expect(res.status, JSON.stringify(json)).toBe(200);
  expect(res.headers.get('payment-response')).toBeTruthy();
  return json;
}

/** Offline: only the published public key, the record and the signature. */
async function verifiesOffline(keyPath: string, record: JsonValue, sha256: string, signature: string): Promise<boolean> {
  const { publicKey } = (await (await fetch(`${service.url}${keyPath}`)).json()) as { publicKey: string };
  const bytes = canonicalBytes(record);
  return sha256Hex(bytes) === sha256 && ed25519.verify(Buffer.from(signature, 'hex'), bytes, Buffer.from(publicKey, 'hex'));
}

async function expectRechecks(signed: JsonObject, member: string, method: 'GET' | 'POST', verifyPath: string, keyPath: string): Promise<void> {
  const record = signed[member] as Record<string, JsonValue>;
  const sha256 = signed.sha256 as string;
  const signature = signed.ed25519Sig as string;
  expect(signed.verifyUrl).toBe(`${service.deps.baseUrl}${verifyPath}`);
  expect(await verifyBody(service, method, verifyPath, record, sha256, signature)).toMatchObject({ valid: true });
  expect(await verifiesOffline(keyPath, record, sha256, signature)).toBe(true);
  for (const t of tampers(record, sha256, signature)) {
    expect((await verifyBody(service, method, verifyPath, t.record, t.sha256, t.signature)).valid, t.name).toBe(false);
    expect(await verifiesOffline(keyPath, t.record, t.sha256, t.signature), t.name).toBe(false);
  }
}

describe('memory, paid over HTTP', () => {
  const store = { agent_id: 'did:web:paid-agent.example', key: 'notes' };

  it('puts and gets, re-checks both, and refuses another payer before settlement', async () => {
    const put = await paid('/v1/memory/put', { ...store, value: { note: 'first' } });
    expect(put.sealed).toMatchObject({ version: 1, prevStateHash: '0'.repeat(64) });
    const got = await paid('/v1/memory/get', store);
    expect(got.sealed).toEqual(put.sealed);
    expect(got.sha256).toBe(put.sha256);
    await expectRechecks(put, 'sealed', 'GET', '/v1/memory/verify', '/v1/memory/public-key');

    for (const [path, body] of [['/v1/memory/put', { ...store, value: 'theirs' }], ['/v1/memory/get', store]] as const) {
      const refused = await postTo(service, path, body, intruder);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('payment-response')).toBeNull();
    }
    const after = await paid('/v1/memory/get', store);
    expect(after.sealed).toEqual(put.sealed);

    const missing = await paid('/v1/memory/get', { ...store, version: 9 });
    expect(missing.sealed).toMatchObject({ outcome: 'NOT-FOUND', requestedVersion: 9, latestVersion: 1 });
    await expectRechecks(missing, 'sealed', 'GET', '/v1/memory/verify', '/v1/memory/public-key');
  });

  it('keeps 20 concurrent paid puts to one key in one chain of exactly 20 linked versions', async () => {
    const key = { agent_id: store.agent_id, key: 'concurrent' };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => paid('/v1/memory/put', { ...key, value: { i } })));
    expect(results.map((r) => (r.sealed as { version: number }).version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const events = await service.deps.store.readStream(memoryStreamName(key.agent_id, key.key));
    expect(events.filter((e) => e.type === MEMORY_EVENT_TYPES.versionWritten)).toHaveLength(20);
    expect(checkMemoryChain(events)).toEqual([]);
  });
});

describe('judge, uptime and tool-permission, paid over HTTP', () => {
  it('grades the example pair and re-checks the verdictCore', async () => {
    const graded = await paid('/v1/mcp/eval/judge', findOperation('mcp.eval.judge')!.example);
    expect(graded.verdictCore).toMatchObject({ outcome: 'GRADED', winner: 'a' });
    await expectRechecks(graded, 'verdictCore', 'GET', '/v1/mcp/eval/judge/verify', '/v1/mcp/eval/judge/public-key');
  });

  it('scores the example probe and re-checks the evidenceCore', async () => {
    const probe = await paid('/v1/mcp/verify/uptime', findOperation('mcp.verify.uptime')!.example);
    expect(probe.evidenceCore).toMatchObject({ outcome: 'UP-SETTLES', availability: 1 });
    await expectRechecks(probe, 'evidenceCore', 'POST', '/v1/mcp/verify/uptime/recheck', '/v1/mcp/verify/uptime/public-key');
  });

  it('threat-models the example manifest and re-checks the evidenceCore', async () => {
    const model = await paid('/v1/mcp/threatmodel/tool-permission', findOperation('mcp.threatmodel.tool-permission')!.example);
    expect(model.evidenceCore).toMatchObject({ riskLevel: 'HIGH', levelCap: { from: 'CRITICAL' } });
    await expectRechecks(model, 'evidenceCore', 'POST', '/v1/mcp/threatmodel/tool-permission/recheck', '/v1/mcp/threatmodel/tool-permission/public-key');
  });
});
