import { PAYMENT_EVENT_TYPES, paymentSettledSchema } from '../payments/saga/events.ts';
import type { RecordedEvent } from '../events/port.ts';
import type { Projection } from './runner.ts';
import type { PublicStats, StatsReader } from '../kernel/operation.ts';

export type { PublicStats, StatsReader };

/** Settlements below one cent are dust (probes, tests), not usage: never counted. */
export const DUST_ATOMIC = 10_000n;

export interface SettlementTotals {
  [key: string]: number | string;
  paidCalls: number;
  revenueAtomic: string;
}

/**
 * Genuine third-party payments from the settlement ledger: local (demo) settlements and dust are
 * left out. Only aggregates are kept; nothing per payer.
 */
export const publicStatsProjection: Projection<SettlementTotals> = {
  name: 'public-stats',
  version: 1,
  handles: [PAYMENT_EVENT_TYPES.settled],
  initialState: { paidCalls: 0, revenueAtomic: '0' },
  evolve(state, event: RecordedEvent) {
    const settled = paymentSettledSchema.safeParse(event.data);
    if (!settled.success || settled.data.demo) return state;
    const amount = BigInt(settled.data.amount);
    if (amount < DUST_ATOMIC) return state;
    return { paidCalls: state.paidCalls + 1, revenueAtomic: (BigInt(state.revenueAtomic) + amount).toString() };
  },
};

/**
 * Serves the projection's totals plus the 402 challenges counted since start, from a short-lived
 * cache so that the route cannot be used to load the service.
 */
export function createStatsReader(totals: () => SettlementTotals, cacheSeconds: number, clock: () => number = Date.now): StatsReader {
  let challenges = 0;
  let cached: { at: number; value: PublicStats } | undefined;
  return {
    async snapshot() {
      const now = clock();
      if (cached && now - cached.at < cacheSeconds * 1000) return cached.value;
      const { paidCalls, revenueAtomic } = totals();
      const revenue = BigInt(revenueAtomic);
      const value: PublicStats = {
        paidCalls,
        revenueAtomic,
        revenueUsd: `${revenue / 1_000_000n}.${(revenue % 1_000_000n).toString().padStart(6, '0')}`,
        paymentChallenges: challenges,
        generatedAt: Math.floor(now / 1000),
        cacheSeconds,
      };
      cached = { at: now, value };
      return value;
    },
    recordChallenge() {
      challenges += 1;
    },
  };
}
