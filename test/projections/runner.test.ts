import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openFileEventStore } from '../../src/events/file-log/store.ts';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import type { EventStore, RecordedEvent, SubscribeOptions } from '../../src/events/port.ts';
import {
  createFileCheckpointStore,
  createMemoryCheckpointStore,
  startProjection,
  type Projection,
} from '../../src/projections/runner.ts';
import { canonicalSha256 } from '../../src/signing/hash.ts';
import { silentLogger } from '../events/helpers.ts';

type Totals = { [operation: string]: { calls: number; amount: number; lastPosition: string } };

/** Paid calls per operation, with the position of the last one: order-sensitive on purpose. */
const totalsByOperation: Projection<Totals> = {
  name: 'totals-by-operation',
  version: 1,
  handles: ['CallPaid'],
  initialState: {},
  evolve(state, event) {
    const data = event.data as { operation: string; amount: number };
    const before = state[data.operation] ?? { calls: 0, amount: 0, lastPosition: '' };
    return { ...state, [data.operation]: { calls: before.calls + 1, amount: before.amount + data.amount, lastPosition: String(event.position) } };
  },
};

const OPERATIONS = ['utils.echo', 'memory.put', 'evidence.seal'];

async function appendCalls(store: EventStore, count: number, offset: number): Promise<bigint> {
  let last = -1n;
  for (let i = 0; i < count; i++) {
    const n = offset + i;
    const result = await store.appendToStream(`call-${n % 7}`, [
      { id: randomUUID(), type: 'CallPaid', data: { operation: OPERATIONS[n % 3]!, amount: n } },
      { id: randomUUID(), type: 'Unrelated', data: { n } },
    ]);
    last = result.position;
  }
  return last;
}

function expectedTotals(count: number): Record<string, { calls: number; amount: number }> {
  const out: Record<string, { calls: number; amount: number }> = {};
  for (let n = 0; n < count; n++) {
    const op = OPERATIONS[n % 3]!;
    out[op] = { calls: (out[op]?.calls ?? 0) + 1, amount: (out[op]?.amount ?? 0) + n };
  }
  return out;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'projection-runner-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('projection runner', () => {
  it('builds the same state incrementally (live, stopped, resumed from its checkpoint) as rebuilt from zero', async () => {
    const store = await openFileEventStore({ dir: join(dir, 'events'), log: silentLogger });
    const checkpoints = createFileCheckpointStore(join(dir, 'projections'));
    await appendCalls(store, 40, 0);
    let runner = await startProjection(store, totalsByOperation, { checkpoints, checkpointIntervalMs: 0, log: silentLogger });
    await runner.waitForPosition(await appendCalls(store, 40, 40), { timeoutMs: 5000 });
    await runner.stop();
    expect(await readdir(join(dir, 'projections'))).toEqual(['totals-by-operation.checkpoint.json']);

    const whileStopped = await appendCalls(store, 40, 80);
    runner = await startProjection(store, totalsByOperation, { checkpoints, checkpointIntervalMs: 0, log: silentLogger });
    expect(runner.position()).toBeGreaterThan(0n); // Resumed, not restarted.
    await runner.waitForPosition(whileStopped, { timeoutMs: 5000 });
    const end = await appendCalls(store, 30, 120);
    await runner.waitForPosition(end, { timeoutMs: 5000 });
    const incremental = runner.state();
    const incrementalHash = canonicalSha256(incremental);
    const want = expectedTotals(150);
    for (const op of OPERATIONS) expect(incremental[op]).toMatchObject(want[op]!);

    await runner.rebuild();
    expect(runner.position()).toBeUndefined();
    await runner.waitForPosition(end, { timeoutMs: 5000 });
    expect(canonicalSha256(runner.state())).toBe(incrementalHash);
    await runner.stop();

    const fresh = await startProjection(store, totalsByOperation, { checkpoints: createMemoryCheckpointStore(), log: silentLogger });
    await fresh.waitForPosition(end, { timeoutMs: 5000 });
    expect(canonicalSha256(fresh.state())).toBe(incrementalHash);
    await fresh.stop();
    await store.close();
  });

  it('saves its checkpoint at most once an interval however many events arrive, and at stop', async () => {
    const store = createMemoryEventStore();
    const saves: Array<bigint | undefined> = [];
    const inner = createMemoryCheckpointStore();
    const checkpoints = { ...inner, save: async (checkpoint: Parameters<typeof inner.save>[0]) => { saves.push(checkpoint.position); await inner.save(checkpoint); } };
    const runner = await startProjection(store, totalsByOperation, { checkpoints, checkpointIntervalMs: 60_000, log: silentLogger });
    // 3,000 events: a rule by count (one save each 1,000) saved three times here.
    await runner.waitForPosition(await appendCalls(store, 1_500, 0), { timeoutMs: 10_000 });
    expect(saves).toEqual([]);
    await runner.stop();
    expect(saves).toEqual([runner.position()]);

    const eager = await startProjection(store, totalsByOperation, { checkpoints, checkpointIntervalMs: 0, log: silentLogger });
    await eager.waitForPosition(await appendCalls(store, 3, 1_500), { timeoutMs: 5000 });
    await eager.stop();
    expect(saves.length).toBeGreaterThanOrEqual(1 + 6);
  });

  it('rebuilds from zero when the projection version changes', async () => {
    const store = createMemoryEventStore();
    const checkpoints = createMemoryCheckpointStore();
    const end = await appendCalls(store, 12, 0);
    const v1 = await startProjection(store, totalsByOperation, { checkpoints, log: silentLogger });
    await v1.waitForPosition(end, { timeoutMs: 5000 });
    await v1.stop();
    const doubled: Projection<Totals> = {
      ...totalsByOperation,
      version: 2,
      evolve: (state, event) => {
        const next = totalsByOperation.evolve(state, event);
        const op = (event.data as { operation: string }).operation;
        return { ...next, [op]: { ...next[op]!, amount: next[op]!.amount + (event.data as { amount: number }).amount } };
      },
    };
    const v2 = await startProjection(store, doubled, { checkpoints, log: silentLogger });
    await v2.waitForPosition(end, { timeoutMs: 5000 });
    const want = expectedTotals(12);
    for (const op of OPERATIONS) expect(v2.state()[op]).toMatchObject({ calls: want[op]!.calls, amount: want[op]!.amount * 2 });
    await v2.stop();
    expect((await checkpoints.load('totals-by-operation'))?.version).toBe(2);
  });

  it('rebuilds from zero on a checkpoint past the end of the log (a log restored from a backup)', async () => {
    const store = createMemoryEventStore();
    const checkpoints = createMemoryCheckpointStore();
    await appendCalls(store, 5, 0);
    const backup: RecordedEvent[] = [];
    for await (const event of store.readAll()) backup.push(event);
    const end = await appendCalls(store, 7, 5);
    const before = await startProjection(store, totalsByOperation, { checkpoints, log: silentLogger });
    await before.waitForPosition(end, { timeoutMs: 5000 });
    await before.stop();

    const restored = createMemoryEventStore();
    for (const event of backup) await restored.appendToStream(event.stream, [{ id: event.id, type: event.type, data: event.data }]);
    // Calls after the restore take positions the checkpoint had folded in on the old log.
    const restoredEnd = await appendCalls(restored, 3, 5);
    const after = await startProjection(restored, totalsByOperation, { checkpoints, log: silentLogger });
    await after.waitForPosition(restoredEnd, { timeoutMs: 5000 });
    const want = expectedTotals(8);
    for (const op of OPERATIONS) expect(after.state()[op]).toMatchObject(want[op]!);
    await after.stop();
  });

  it('folds each event once even when the store delivers it more than once', async () => {
    const inner = createMemoryEventStore();
    // At-least-once delivery, as after a reconnect: every event arrives twice.
    const stuttering: EventStore = {
      ...inner,
      subscribeToAll: (options: SubscribeOptions) =>
        inner.subscribeToAll({
          ...options,
          onEvent: async (e: RecordedEvent) => {
            await options.onEvent(e);
            await options.onEvent(e);
          },
        }),
    };
    const end = await appendCalls(inner, 9, 0);
    const runner = await startProjection(stuttering, totalsByOperation, { checkpoints: createMemoryCheckpointStore(), log: silentLogger });
    await runner.waitForPosition(end, { timeoutMs: 5000 });
    const want = expectedTotals(9);
    for (const op of OPERATIONS) expect(runner.state()[op]).toMatchObject(want[op]!);
    await runner.stop();
  });

  it('waitForPosition times out with where the projection is', async () => {
    const store = createMemoryEventStore();
    const runner = await startProjection(store, totalsByOperation, { checkpoints: createMemoryCheckpointStore(), log: silentLogger });
    await expect(runner.waitForPosition(5n, { timeoutMs: 50 })).rejects.toThrow(/did not reach position 5/);
    await runner.stop();
  });

  it('stops on an evolve that throws, and says where', async () => {
    const store = createMemoryEventStore();
    const end = await appendCalls(store, 3, 0);
    const broken: Projection<Totals> = { ...totalsByOperation, evolve: () => { throw new Error('boom'); } };
    const runner = await startProjection(store, broken, { checkpoints: createMemoryCheckpointStore(), log: silentLogger });
    await expect(runner.waitForPosition(end, { timeoutMs: 2000 })).rejects.toThrow(/failed on event .* at position 0: boom/);
    await runner.stop();
  });
});
