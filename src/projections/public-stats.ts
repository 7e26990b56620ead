import { PAYMENT_EVENT_TYPES, paymentSettledSchema } from '../events/payment-events.ts';
import type { EventStore } from '../events/port.ts';

/** Settlements below one cent are dust (probes, tests), not usage: never counted. */
export const DUST_ATOMIC = 10_000n;

export interface PublicStats {
  paidCalls: number;
  revenueAtomic: string;
  revenueUsd: string;
  paymentChallenges: number;
  generatedAt: number;
  cacheSeconds: number;
}

export interface StatsReader {
  snapshot(): Promise<PublicStats>;
  /** Called by the HTTP layer for each correct 402 challenge it answers. */
  recordChallenge(): void;
}

/**
 * Aggregate-only usage figures: genuine payments (local demo settlements and dust excluded) and
 * the number of 402 challenges answered since start. Nothing per requester is kept. The figures
 * are folded incrementally from the log (each refresh reads only what is new) and served from a
 * short-lived cache so that the route cannot be used to load the service.
 */
export function createStatsReader(store: EventStore, cacheSeconds: number, clock: () => number = Date.now): StatsReader {
  let paidCalls = 0;
  let revenue = 0n;
  let challenges = 0;
  let lastPosition: bigint | undefined;
  let cached: { at: number; value: PublicStats } | undefined;
  let refreshing: Promise<PublicStats> | undefined;

  async function refresh(): Promise<PublicStats> {
    for await (const e of store.readAll(lastPosition === undefined ? {} : { fromPosition: lastPosition })) {
      lastPosition = e.position;
      if (e.type !== PAYMENT_EVENT_TYPES.settled) continue;
      const settled = paymentSettledSchema.safeParse(e.data);
      if (!settled.success || settled.data.demo) continue;
      const amount = BigInt(settled.data.amount);
      if (amount < DUST_ATOMIC) continue;
      paidCalls += 1;
      revenue += amount;
    }
    const now = clock();
    const value: PublicStats = {
      paidCalls,
      revenueAtomic: revenue.toString(),
      revenueUsd: `${revenue / 1_000_000n}.${(revenue % 1_000_000n).toString().padStart(6, '0')}`,
      paymentChallenges: challenges,
      generatedAt: Math.floor(now / 1000),
      cacheSeconds,
    };
    cached = { at: now, value };
    return value;
  }

  return {
    async snapshot() {
      if (cached && clock() - cached.at < cacheSeconds * 1000) return cached.value;
      refreshing ??= refresh().finally(() => (refreshing = undefined));
      return refreshing;
    },
    recordChallenge() {
      challenges += 1;
    },
  };
}
