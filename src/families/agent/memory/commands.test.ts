import { describe, expect, it } from 'vitest';
import { checkMemoryChain } from './audit-rule.ts';
import { memoryStreamName } from './commands.ts';
import { DomainRefusal } from '../../../kernel/decider.ts';
import { findOperation } from '../../../catalog/index.ts';
import { runOperation } from '../../../kernel/run-operation.ts';
import { GENESIS_STATE_HASH, verifyMemoryChain, type MemoryVersion } from './chain.ts';
import { MEMORY_EVENT_TYPES } from './events.ts';
import { createMemoryEventStore } from '../../../events/memory-store.ts';
import { check } from '../../../signing/seal.ts';
import { PAYER_A, PAYER_B, testCallContext } from '../../../../test/support/call-context.ts';

const put = findOperation('memory.put')!;
const get = findOperation('memory.get')!;
const store = { agent_id: 'did:web:agent.example', key: 'prefs' };

describe('memory put and get commands', () => {
  it('keeps 20 concurrent puts to one key in one linear chain of exactly 20 verifying versions', async () => {
    const shared = createMemoryEventStore();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => runOperation(put, { ...store, value: { n: i } }, testCallContext({ store: shared }))),
    );
    const events = await shared.readStream(memoryStreamName(store.agent_id, store.key));
    const versions = events.filter((e) => e.type === MEMORY_EVENT_TYPES.versionWritten).map((e) => e.data as unknown as MemoryVersion);
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(versions[0]!.prevStateHash).toBe(GENESIS_STATE_HASH);
    for (let i = 1; i < versions.length; i++) expect(versions[i]!.prevStateHash).toBe(versions[i - 1]!.stateHash);
    expect(verifyMemoryChain(versions.map(({ paymentId: _p, ...v }: MemoryVersion & { paymentId?: string }) => v))).toEqual([]);
    expect(checkMemoryChain(events)).toEqual([]);
    expect(new Set(results.map((r) => (r.record as { version: number }).version)).size).toBe(20);
    const ctx = testCallContext({ store: shared });
    for (const r of results) expect(check(ctx.keyring, 'memory', r.record, r.seal.sha256, r.seal.ed25519Sig).valid).toBe(true);
  });

  it('returns the same version when a put is resumed for the same payment', async () => {
    const ctx = testCallContext();
    const first = await runOperation(put, { ...store, value: 'v1' }, ctx);
    const again = await runOperation(put, { ...store, value: 'v1' }, ctx);
    expect(again.record).toEqual(first.record);
    expect(again.seal).toEqual(first.seal);
    expect(await ctx.store.readStream(memoryStreamName(store.agent_id, store.key))).toHaveLength(2);
  });

  it('gets the latest or a given version as the very record the put signed, and NOT-FOUND otherwise', async () => {
    const shared = createMemoryEventStore();
    const p1 = await runOperation(put, { ...store, value: 'first' }, testCallContext({ store: shared }));
    const p2 = await runOperation(put, { ...store, value: 'second' }, testCallContext({ store: shared }));
    const latest = await runOperation(get, store, testCallContext({ store: shared }));
    expect(latest.record).toEqual(p2.record);
    expect(latest.seal.sha256).toBe(p2.seal.sha256);
    expect((await runOperation(get, { ...store, version: 1 }, testCallContext({ store: shared }))).record).toEqual(p1.record);
    const missingVersion = await runOperation(get, { ...store, version: 3 }, testCallContext({ store: shared }));
    expect(missingVersion.record).toMatchObject({ outcome: 'NOT-FOUND', requestedVersion: 3, latestVersion: 2 });
    const missingKey = await runOperation(get, { ...store, key: 'nothing-here' }, testCallContext({ store: shared }));
    expect(missingKey.record).toMatchObject({ outcome: 'NOT-FOUND', requestedVersion: null, latestVersion: null });
    expect(missingKey.body).toHaveProperty('sealed.outcome', 'NOT-FOUND');
  });

  it('refuses another payer in authorize (read and write) and changes nothing', async () => {
    const shared = createMemoryEventStore();
    await runOperation(put, { ...store, value: 'mine' }, testCallContext({ store: shared, payer: PAYER_A }));
    const before = await shared.readStream(memoryStreamName(store.agent_id, store.key));
    const intruder = testCallContext({ store: shared, payer: PAYER_B });
    expect(await put.command!.authorize!({ ...store, value: 'theirs' }, intruder)).toMatchObject({ status: 403 });
    expect(await get.command!.authorize!(store, intruder)).toMatchObject({ status: 403 });
    await expect(put.command!.execute({ ...store, value: 'theirs' }, intruder)).rejects.toBeInstanceOf(DomainRefusal);
    await expect(get.command!.execute(store, intruder)).rejects.toBeInstanceOf(DomainRefusal);
    expect(await shared.readStream(memoryStreamName(store.agent_id, store.key))).toEqual(before);
    expect(await put.command!.authorize!({ ...store, value: 'mine' }, testCallContext({ store: shared, payer: PAYER_A }))).toBeUndefined();
    expect(await get.command!.authorize!({ ...store, key: 'fresh' }, intruder)).toBeUndefined();
  });

  it('answers a value one byte over the cap with BUDGET-EXCEEDED in precheck, and one at the cap not', () => {
    const settings = testCallContext().settings;
    const cap = settings.MEMORY_VALUE_CAP_BYTES;
    const atCap = 'x'.repeat(cap - 2);
    expect(put.precheck!({ ...store, value: atCap }, settings, 1_767_225_600)).toBeUndefined();
    expect(put.precheck!({ ...store, value: `${atCap}x` }, settings, 1_767_225_600)).toMatchObject({ status: 422, outcome: 'BUDGET-EXCEEDED', issues: [{ path: 'value' }] });
  });

  it('names streams by a hash of [agent_id, key], so separators cannot collide', () => {
    expect(memoryStreamName('a-b', 'c')).not.toBe(memoryStreamName('a', 'b-c'));
    expect(memoryStreamName('a', 'b')).toMatch(/^memory-[0-9a-f]{64}$/);
  });
});

describe('memory chain audit', () => {
  it('reports a tampered stored value and a stream that does not open with its owner', async () => {
    const shared = createMemoryEventStore();
    for (const value of [1, 2, 3]) await runOperation(put, { ...store, value }, testCallContext({ store: shared }));
    const events = await shared.readStream(memoryStreamName(store.agent_id, store.key));
    const tampered = events.map((e) => (e.revision === 2n ? { ...e, data: { ...(e.data as object), value: 42 } } : e));
    expect(checkMemoryChain(tampered).map((f) => f.kind)).toContain('chain:memory');
    expect(checkMemoryChain(events.slice(1)).some((f) => /does not open/.test(f.message))).toBe(true);
    const moved = events.map((e) => ({ ...e, stream: 'memory-elsewhere' }));
    expect(checkMemoryChain(moved).some((f) => /stream name/.test(f.message))).toBe(true);
  });
});
