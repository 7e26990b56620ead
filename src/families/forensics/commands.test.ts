import { describe, expect, it } from 'vitest';
import { findOperation } from '../../catalog/index.ts';
import type { PricedOperation } from '../../kernel/operation.ts';
import { runOperation } from '../../kernel/run-operation.ts';
import { c2paStream, evidenceStream } from './events.ts';
import { createMemoryEventStore } from '../../events/memory-store.ts';
import type { JsonObject } from '../../signing/rfc8785.ts';
import { PAYER_B, testCallContext } from '../../../test/support/call-context.ts';

const op = (id: string) => findOperation(id) as PricedOperation<unknown>;
const ingest = op('evidence.ingest');
const query = op('evidence.query');
const c2pa = op('data.c2pa.verify');
const snapshot = op('data.signed-snapshot');

const entry = { action: 'invoice.approved', actor: 'did:example:cfo', payload: { invoice: 'INV-7', amount: 1200 } };

describe('forensics commands', () => {
  it('every catalogue example validates against its own input schema', () => {
    for (const o of [ingest, query, c2pa, snapshot]) expect(o.input.safeParse(o.example).success, o.id).toBe(true);
  });

  it('ingest persists EvidenceSealed under evidence-<entryId>; re-ingesting the same content returns the first seal', async () => {
    const store = createMemoryEventStore();
    const first = await runOperation(ingest, entry, testCallContext({ store, now: 1000 }));
    const entryId = first.record.entryId as string;
    const events = await store.readStream(evidenceStream(entryId));
    expect(events.map((e) => e.type)).toEqual(['EvidenceSealed']);
    expect((events[0]!.data as JsonObject).sealed).toEqual(first.record);

    const again = await runOperation(ingest, entry, testCallContext({ store, now: 5000, payer: PAYER_B }));
    expect(again.record).toEqual(first.record);
    expect(again.record.sealedAt).toBe(1000);
    expect(again.seal).toEqual(first.seal);
    expect(await store.readStream(evidenceStream(entryId))).toHaveLength(1);
  });

  it('ingest resumed for the same payment writes nothing twice', async () => {
    const store = createMemoryEventStore();
    const ctx = testCallContext({ store });
    const a = await runOperation(ingest, entry, ctx);
    const b = await runOperation(ingest, entry, { ...ctx, now: ctx.now + 30 });
    expect(b.seal).toEqual(a.seal);
    expect(await store.readStream(evidenceStream(a.record.entryId as string))).toHaveLength(1);
  });

  it('concurrent ingests of one entry by different payments agree on one seal', async () => {
    const store = createMemoryEventStore();
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => runOperation(ingest, entry, testCallContext({ store, now: 2000 + i }))));
    expect(new Set(results.map((r) => r.seal.sha256)).size).toBe(1);
    expect(await store.readStream(evidenceStream(results[0]!.record.entryId as string))).toHaveLength(1);
  });

  it('query binds stored entries, lists unknown ids, and is order independent', async () => {
    const store = createMemoryEventStore();
    const ids: string[] = [];
    for (const action of ['a', 'b', 'c']) ids.push((await runOperation(ingest, { action }, testCallContext({ store }))).record.entryId as string);
    const unknown = 'f'.repeat(64);
    const r1 = await runOperation(query, { entryIds: [ids[2], ids[0], unknown, ids[1]] }, testCallContext({ store, now: 1 }));
    const r2 = await runOperation(query, { entryIds: [unknown, ids[1], ids[1], ids[0], ids[2], unknown] }, testCallContext({ store, now: 99_999 }));
    expect(r1.record.outcome).toBe('PARTIAL');
    expect(r1.record.not_found).toEqual([unknown]);
    expect(r1.record.found_count).toBe(3);
    expect(r2.seal).toEqual(r1.seal);
    expect(r2.body).toEqual(r1.body);
  });

  it('query binds the digest the ingest returned for each entry', async () => {
    const store = createMemoryEventStore();
    const sealed = await runOperation(ingest, entry, testCallContext({ store }));
    const receipt = await runOperation(query, { entryIds: [sealed.record.entryId] }, testCallContext({ store }));
    expect(receipt.record.entries).toEqual([{ entryId: sealed.record.entryId, sha256: sealed.seal.sha256 }]);
    expect(receipt.record.outcome).toBe('BOUND');
  });

  it('c2pa verify persists C2paAttestationRecorded before it answers; the same pair keeps its first attestation', async () => {
    const store = createMemoryEventStore();
    const first = await runOperation(c2pa, c2pa.example, testCallContext({ store, now: 10 }));
    expect(first.record.outcome).toBe('BINDING-MATCH');
    const id = first.record.attestation_id as string;
    const events = await store.readStream(c2paStream(id));
    expect(events.map((e) => e.type)).toEqual(['C2paAttestationRecorded']);
    expect(events[0]!.data).toEqual({ attestation_id: id, evidenceCore: first.record });
    const again = await runOperation(c2pa, c2pa.example, testCallContext({ store, now: 20 }));
    expect(again.seal).toEqual(first.seal);
  });

  it('snapshot is stamped with ctx.now and writes no domain event', async () => {
    const store = createMemoryEventStore();
    const result = await runOperation(snapshot, snapshot.example, testCallContext({ store, now: 1_767_225_600 }));
    expect(result.record).toMatchObject({ outcome: 'SEALED', stampedAt: 1_767_225_600, freshness: { tier: 'FRESH', age_seconds: 600 } });
    expect(result.body.evidenceCore).toEqual(result.record);
  });
});
