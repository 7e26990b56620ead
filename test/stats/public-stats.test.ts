import { describe, expect, it } from 'vitest';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { createStatsReader, publicStatsProjection } from '../../src/projections/public-stats.ts';
import { createMemoryCheckpointStore, startProjection } from '../../src/projections/runner.ts';

const settled = (amount: string, demo: boolean, mode: 'local' | 'onchain' = demo ? 'local' : 'onchain') => ({
  mode,
  transaction: `0x${'a'.repeat(64)}`,
  network: 'eip155:8453',
  payer: `0x${'1'.repeat(40)}`,
  amount,
  demo,
});

describe('public stats', () => {
  it('counts genuine settlements only: demo and dust are left out', async () => {
    const store = createMemoryEventStore();
    const events = [settled('250000', false), settled('250000', true), settled('9999', false), settled('2000000', false)];
    for (const [i, data] of events.entries())
      await store.appendToStream(`payment-x-${i}`, [{ id: crypto.randomUUID(), type: 'PaymentSettled', data }]);
    await store.appendToStream('other', [{ id: crypto.randomUUID(), type: 'ResultSigned', data: { amount: '999999999' } }]);
    const runner = await startProjection(store, publicStatsProjection, { checkpoints: createMemoryCheckpointStore() });
    await runner.waitForPosition(4n);
    let now = 1_000_000;
    const reader = createStatsReader(() => runner.state(), 30, () => now);
    reader.recordChallenge();
    reader.recordChallenge();
    expect(await reader.snapshot()).toEqual({ paidCalls: 2, revenueAtomic: '2250000', revenueUsd: '2.250000', paymentChallenges: 2, generatedAt: 1000, cacheSeconds: 30 });

    // Served from the cache until it expires, then fresh.
    reader.recordChallenge();
    expect((await reader.snapshot()).paymentChallenges).toBe(2);
    now += 31_000;
    expect((await reader.snapshot()).paymentChallenges).toBe(3);
    await runner.stop();
  });
});
