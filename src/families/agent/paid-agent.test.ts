import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { findOperation } from '../../catalog/index.ts';
import { checkMemoryChain } from './memory/audit-rule.ts';
import { legacyMemoryStreamName, MEMORY_EVENT_TYPES, memoryStreamName } from './memory/events.ts';
import { writeLegacyMemoryStore } from './memory/legacy-store.test-support.ts';
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

  it('puts and gets, and re-checks both', async () => {
    const put = await paid('/v1/memory/put', { ...store, value: { note: 'first' } });
    expect(put.sealed).toMatchObject({ ruleset: { id: 'memory-chain', version: '2' }, owner: owner.address.toLowerCase(), version: 1, prevStateHash: '0'.repeat(64) });
    const got = await paid('/v1/memory/get', store);
    expect(got.sealed).toEqual(put.sealed);
    expect(got.sha256).toBe(put.sha256);
    await expectRechecks(put, 'sealed', 'GET', '/v1/memory/verify', '/v1/memory/public-key');

    const missing = await paid('/v1/memory/get', { ...store, version: 9 });
    expect(missing.sealed).toMatchObject({ outcome: 'NOT-FOUND', requestedVersion: 9, latestVersion: 1 });
    await expectRechecks(missing, 'sealed', 'GET', '/v1/memory/verify', '/v1/memory/public-key');
  });

  it("keeps one store per payer: another payer's get is a paid NOT-FOUND, its put opens its own version 1, the first payer still reads its own value", async () => {
    const shared = { agent_id: store.agent_id, key: 'shared-name' };
    const mine = await paid('/v1/memory/put', { ...shared, value: 'mine' });

    // paid() checks 200 and the settlement header: the other payer is charged like anyone asking about a store they do not have.
    const nothing = await paid('/v1/memory/get', shared, intruder);
    expect(nothing.sealed).toMatchObject({ owner: intruder.address.toLowerCase(), outcome: 'NOT-FOUND', requestedVersion: null, latestVersion: null });
    const theirs = await paid('/v1/memory/put', { ...shared, value: 'theirs' }, intruder);
    expect(theirs.sealed).toMatchObject({ owner: intruder.address.toLowerCase(), version: 1, prevStateHash: '0'.repeat(64), value: 'theirs' });
    await expectRechecks(theirs, 'sealed', 'GET', '/v1/memory/verify', '/v1/memory/public-key');

    expect((await paid('/v1/memory/get', shared)).sealed).toEqual(mine.sealed);
    expect((await paid('/v1/memory/get', shared, intruder)).sealed).toEqual(theirs.sealed);
  });

  it('reads back a store written before stores were scoped to their payer, for its owner only, and extends its chain', async () => {
    const legacy = { agent_id: store.agent_id, key: 'written-before' };
    const [first] = await writeLegacyMemoryStore(service.deps.store, owner.address.toLowerCase(), legacy, ['old']);
    const readBack = await paid('/v1/memory/get', legacy);
    expect(readBack.sealed).toEqual({ kind: 'memory-version', ruleset: { id: 'memory-chain', version: '1' }, ...first! });
    await expectRechecks(readBack, 'sealed', 'GET', '/v1/memory/verify', '/v1/memory/public-key');

    expect((await paid('/v1/memory/get', legacy, intruder)).sealed).toMatchObject({ outcome: 'NOT-FOUND', latestVersion: null });
    expect((await paid('/v1/memory/put', { ...legacy, value: 'theirs' }, intruder)).sealed).toMatchObject({ version: 1, prevStateHash: '0'.repeat(64) });

    const next = await paid('/v1/memory/put', { ...legacy, value: 'new' });
    expect(next.sealed).toMatchObject({ owner: owner.address.toLowerCase(), version: 2, prevStateHash: first!.stateHash, value: 'new' });
    const legacyEvents = await service.deps.store.readStream(legacyMemoryStreamName(legacy.agent_id, legacy.key));
    expect(legacyEvents.filter((e) => e.type === MEMORY_EVENT_TYPES.versionWritten)).toHaveLength(2);
    expect(checkMemoryChain(legacyEvents)).toEqual([]);
  });

  it('keeps 20 concurrent paid puts to one key in one chain of exactly 20 linked versions', async () => {
    const key = { agent_id: store.agent_id, key: 'concurrent' };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => paid('/v1/memory/put', { ...key, value: { i } })));
    expect(results.map((r) => (r.sealed as { version: number }).version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const events = await service.deps.store.readStream(memoryStreamName(owner.address, key.agent_id, key.key));
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
