import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkMemoryChain } from './audit-rule.ts';
import { findOperation } from '../../../catalog/index.ts';
import { runOperation } from '../../../kernel/run-operation.ts';
import { GENESIS_STATE_HASH, verifyMemoryChain, type MemoryVersion } from './chain.ts';
import { writeLegacyMemoryStore } from './legacy-store.test-support.ts';
import { memoryDecider } from './decider.ts';
import type { EventData } from '../../../events/port.ts';
import { paymentStreamName } from '../../../payments/saga/events.ts';
import { legacyMemoryStreamName, MEMORY_EVENT_TYPES, memoryStreamName } from './events.ts';
import { createMemoryEventStore } from '../../../events/memory-store.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { check } from '../../../signing/seal.ts';
import { PAYER_A, PAYER_B, testCallContext } from '../../../../test/support/call-context.ts';

const put = findOperation('memory.put')!;
const get = findOperation('memory.get')!;
const store = { agent_id: 'did:web:agent.example', key: 'prefs' };
const streamOf = (payer: string) => memoryStreamName(payer, store.agent_id, store.key);
const legacyStream = legacyMemoryStreamName(store.agent_id, store.key);

describe('memory put and get commands', () => {
  it('keeps 20 concurrent puts to one key in one linear chain of exactly 20 verifying versions', async () => {
    const shared = createMemoryEventStore();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => runOperation(put, { ...store, value: { n: i } }, testCallContext({ store: shared }))),
    );
    const events = await shared.readStream(streamOf(PAYER_A));
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
    expect(await ctx.store.readStream(streamOf(PAYER_A))).toHaveLength(2);
  });

  it('answers every earlier version, and a put resumed after later ones, with the very record its put signed, read back from the stream', async () => {
    const shared = createMemoryEventStore();
    const contexts = Array.from({ length: 5 }, () => testCallContext({ store: shared }));
    const puts = [];
    for (const [i, ctx] of contexts.entries()) puts.push(await runOperation(put, { ...store, value: { n: i, text: 'x'.repeat(1_000) } }, ctx));
    for (const [i, written] of puts.entries()) {
      const got = await runOperation(get, { ...store, version: i + 1 }, testCallContext({ store: shared }));
      expect(got.record).toEqual(written.record);
      expect(got.seal.sha256).toBe(written.seal.sha256);
    }
    // The second put resumed (its payment again): the version it wrote, now three versions back.
    const resumed = await runOperation(put, { ...store, value: { n: 1, text: 'x'.repeat(1_000) } }, contexts[1]!);
    expect(resumed.record).toEqual(puts[1]!.record);
    expect(await shared.readStream(streamOf(PAYER_A))).toHaveLength(6);
  });

  it('answers an early version, and a put resumed, from places archived after 2,048 versions, as from places held whole', async () => {
    // The store's events as 2,100 puts would write them, decided and appended here in one append
    // (a put through the whole command costs milliseconds).
    const shared = createMemoryEventStore();
    const paymentOf = (i: number) => paymentStreamName(PAYER_A, `0x${i.toString(16).padStart(64, '0')}`);
    let state = memoryDecider.initialState;
    const written: EventData[] = [];
    for (let i = 0; i < 2_100; i++) {
      const events = memoryDecider.decide({ ...store, value: i, payer: PAYER_A, paymentId: paymentOf(i), now: 1_767_225_600 + i }, state);
      state = events.reduce(memoryDecider.evolve, state);
      written.push(...events.map((e) => ({ id: randomUUID(), type: e.type, data: e.data })));
    }
    await shared.appendToStream(streamOf(PAYER_A), written, { expectedRevision: 'no_stream' });
    const stored = (version: number) => written.find((e) => e.type === MEMORY_EVENT_TYPES.versionWritten && (e.data as { version: number }).version === version)!.data as { stateHash: string };
    for (const version of [3, 1_024, 1_025, 2_100]) {
      const got = await runOperation(get, { ...store, version }, testCallContext({ store: shared }));
      expect(got.record).toMatchObject({ version, value: version - 1, stateHash: stored(version).stateHash });
    }
    // A put resumed (its payment again) answers the version it wrote, whose place was archived.
    const resumed = await runOperation(put, { ...store, value: 2 }, testCallContext({ store: shared, paymentId: paymentOf(2) }));
    expect(resumed.record).toEqual((await runOperation(get, { ...store, version: 3 }, testCallContext({ store: shared }))).record);
    expect(await shared.readStream(streamOf(PAYER_A))).toHaveLength(2_101);
  });

  it('gets the latest or a given version as the very record the put signed, and NOT-FOUND otherwise', async () => {
    const shared = createMemoryEventStore();
    const p1 = await runOperation(put, { ...store, value: 'first' }, testCallContext({ store: shared }));
    const p2 = await runOperation(put, { ...store, value: 'second' }, testCallContext({ store: shared }));
    expect(p1.record).toMatchObject({ ruleset: { id: 'memory-chain', version: '2' }, owner: PAYER_A, version: 1 });
    const latest = await runOperation(get, store, testCallContext({ store: shared }));
    expect(latest.record).toEqual(p2.record);
    expect(latest.seal.sha256).toBe(p2.seal.sha256);
    expect((await runOperation(get, { ...store, version: 1 }, testCallContext({ store: shared }))).record).toEqual(p1.record);
    const missingVersion = await runOperation(get, { ...store, version: 3 }, testCallContext({ store: shared }));
    expect(missingVersion.record).toMatchObject({ owner: PAYER_A, outcome: 'NOT-FOUND', requestedVersion: 3, latestVersion: 2 });
    const missingKey = await runOperation(get, { ...store, key: 'nothing-here' }, testCallContext({ store: shared }));
    expect(missingKey.record).toMatchObject({ owner: PAYER_A, outcome: 'NOT-FOUND', requestedVersion: null, latestVersion: null });
    expect(missingKey.body).toHaveProperty('sealed.outcome', 'NOT-FOUND');
  });

  it("keeps each payer's store of one (agent_id, key) apart: another payer reads NOT-FOUND and writes its own chain from version 1", async () => {
    const shared = createMemoryEventStore();
    const asA = () => testCallContext({ store: shared, payer: PAYER_A });
    const asB = () => testCallContext({ store: shared, payer: PAYER_B });
    expect(put.command!.authorize).toBeUndefined();
    expect(get.command!.authorize).toBeUndefined();
    const mine = await runOperation(put, { ...store, value: 'mine' }, asA());
    const before = await shared.readStream(streamOf(PAYER_A));

    const nothingForB = await runOperation(get, store, asB());
    expect(nothingForB.record).toMatchObject({ owner: PAYER_B, outcome: 'NOT-FOUND', latestVersion: null });
    // The same answer as for a store nobody keeps, but for the key asked about: nothing tells that A keeps one.
    const nobodys = await runOperation(get, { ...store, key: 'no-one-has-this' }, asB());
    expect({ ...nothingForB.record, key: store.key }).toEqual({ ...nobodys.record, key: store.key });
    const theirs = await runOperation(put, { ...store, value: 'theirs' }, asB());
    expect(theirs.record).toMatchObject({ owner: PAYER_B, version: 1, prevStateHash: GENESIS_STATE_HASH, value: 'theirs' });
    expect((await runOperation(get, store, asB())).record).toEqual(theirs.record);

    expect((await runOperation(get, store, asA())).record).toEqual(mine.record);
    expect(await shared.readStream(streamOf(PAYER_A))).toEqual(before);
    expect(checkMemoryChain(await shared.readStream(streamOf(PAYER_B)))).toEqual([]);
    expect(await shared.readStream(legacyStream)).toEqual([]);
  });

  it("reads and extends a legacy store for its recorded owner only; another payer neither sees nor extends it", async () => {
    const shared = createMemoryEventStore();
    const legacy = await writeLegacyMemoryStore(shared, PAYER_A, store, ['old-1', 'old-2']);
    const asA = () => testCallContext({ store: shared, payer: PAYER_A });
    const asB = () => testCallContext({ store: shared, payer: PAYER_B });

    const readBack = await runOperation(get, store, asA());
    expect(readBack.record).toEqual({ kind: 'memory-version', ruleset: { id: 'memory-chain', version: '1' }, ...legacy[1]! });
    expect((await runOperation(get, { ...store, version: 1 }, asA())).record).toMatchObject({ version: 1, value: 'old-1' });

    expect((await runOperation(get, store, asB())).record).toMatchObject({ owner: PAYER_B, outcome: 'NOT-FOUND', latestVersion: null });
    const theirs = await runOperation(put, { ...store, value: 'b-1' }, asB());
    expect(theirs.record).toMatchObject({ owner: PAYER_B, version: 1, prevStateHash: GENESIS_STATE_HASH });

    const extended = await runOperation(put, { ...store, value: 'new-3' }, asA());
    expect(extended.record).toMatchObject({ ruleset: { id: 'memory-chain', version: '2' }, owner: PAYER_A, version: 3, prevStateHash: legacy[1]!.stateHash });
    expect((await runOperation(get, store, asA())).record).toEqual(extended.record);

    const legacyEvents = await shared.readStream(legacyStream);
    expect(legacyEvents.map((e) => (e.data as { value?: JsonValue }).value ?? null)).toEqual([null, 'old-1', 'old-2', 'new-3']);
    expect(checkMemoryChain(legacyEvents)).toEqual([]);
    expect(await shared.readStream(streamOf(PAYER_A))).toEqual([]);
    expect((await shared.readStream(streamOf(PAYER_B))).map((e) => (e.data as { value?: JsonValue }).value ?? null)).toEqual([null, 'b-1']);
  });

  it('answers a value one byte over the cap with BUDGET-EXCEEDED in precheck, and one at the cap not', () => {
    const settings = testCallContext().settings;
    const cap = settings.MEMORY_VALUE_CAP_BYTES;
    const atCap = 'x'.repeat(cap - 2);
    expect(put.precheck!({ ...store, value: atCap }, settings, 1_767_225_600)).toBeUndefined();
    expect(put.precheck!({ ...store, value: `${atCap}x` }, settings, 1_767_225_600)).toMatchObject({ status: 422, outcome: 'BUDGET-EXCEEDED', issues: [{ path: 'value' }] });
  });

  it('names streams by the lowercase payer and a hash of [agent_id, key], so separators cannot collide and payers never share one', () => {
    expect(memoryStreamName(PAYER_A, 'a-b', 'c')).not.toBe(memoryStreamName(PAYER_A, 'a', 'b-c'));
    expect(memoryStreamName(PAYER_A, 'a', 'b')).not.toBe(memoryStreamName(PAYER_B, 'a', 'b'));
    expect(memoryStreamName('0xABCDEF0000000000000000000000000000000000', 'a', 'b')).toMatch(/^memory-0xabcdef0{34}-[0-9a-f]{64}$/);
    expect(legacyMemoryStreamName('a', 'b')).toMatch(/^memory-[0-9a-f]{64}$/);
  });
});

describe('memory chain audit', () => {
  it('reports a tampered stored value, a stream that does not open with its owner, and a stream under another name', async () => {
    const shared = createMemoryEventStore();
    for (const value of [1, 2, 3]) await runOperation(put, { ...store, value }, testCallContext({ store: shared }));
    const events = await shared.readStream(streamOf(PAYER_A));
    const tampered = events.map((e) => (e.revision === 2n ? { ...e, data: { ...(e.data as object), value: 42 } } : e));
    expect(checkMemoryChain(tampered).map((f) => f.kind)).toContain('chain:memory');
    expect(checkMemoryChain(events.slice(1)).some((f) => /does not open/.test(f.message))).toBe(true);
    for (const elsewhere of ['memory-elsewhere', streamOf(PAYER_B)]) {
      const moved = events.map((e) => ({ ...e, stream: elsewhere }));
      expect(checkMemoryChain(moved).some((f) => /stream name/.test(f.message)), elsewhere).toBe(true);
    }
  });

  it("reports a version naming another owner than the store's, and a version without owner outside a legacy stream", async () => {
    const shared = createMemoryEventStore();
    await runOperation(put, { ...store, value: 1 }, testCallContext({ store: shared }));
    const events = await shared.readStream(streamOf(PAYER_A));
    const reowned = events.map((e) => (e.revision === 1n ? { ...e, data: { ...(e.data as object), owner: PAYER_B } } : e));
    expect(checkMemoryChain(reowned).some((f) => /names owner 0x2222/.test(f.message))).toBe(true);
    const unowned = events.map((e) => {
      if (e.revision !== 1n) return e;
      const { owner: _owner, ...rest } = e.data as { owner?: string };
      return { ...e, data: rest };
    });
    expect(checkMemoryChain(unowned).some((f) => /names no owner/.test(f.message))).toBe(true);
  });
});
