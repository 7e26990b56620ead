import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rankRoutes, TRUSTED_ROUTE_RULESET, type CandidateRoute } from './engine.ts';
import { canonicalText, type JsonObject } from '../../../signing/rfc8785.ts';

const history = (ok: number, fail: number, latency?: number, cost?: number) => [
  ...Array.from({ length: ok }, () => ({ success: true, ...(latency === undefined ? {} : { latency_ms: latency }), ...(cost === undefined ? {} : { cost_usd: cost }) })),
  ...Array.from({ length: fail }, () => ({ success: false, ...(latency === undefined ? {} : { latency_ms: latency }), ...(cost === undefined ? {} : { cost_usd: cost }) })),
];
const ids = (record: JsonObject) => (record.ranking as JsonObject[]).map((e) => e.id);

describe('trusted-route engine', () => {
  it('ranks by score: reliable, fast and cheap first', () => {
    const record = rankRoutes({
      routes: [
        { id: 'slow', price_usd: 0.01, history: history(10, 0, 3000, 0.01) },
        { id: 'flaky', price_usd: 0.01, history: history(5, 5, 100, 0.01) },
        { id: 'best', price_usd: 0.01, history: history(10, 0, 100, 0.01) },
      ],
    });
    expect(record.routes_count).toBe(3);
    expect(ids(record)).toEqual(['best', 'slow', 'flaky']);
    expect((record.ranking as JsonObject[]).map((e) => e.rank)).toEqual([1, 2, 3]);
    expect((record.ranking as JsonObject[])[0]).toMatchObject({ ruleset: TRUSTED_ROUTE_RULESET, history_count: 10, success_rate: 1, median_latency_ms: 100, mean_cost_usd: '0.01', price_usd: '0.01', insufficient_history: false, not_provided: [] });
  });

  it('marks every ranking entry as resting on caller-supplied history', () => {
    const record = rankRoutes({ routes: [{ id: 'a', history: history(6, 0) }, { id: 'b', history: history(1, 0) }] });
    expect((record.ranking as JsonObject[]).map((e) => e.evidence_source)).toEqual(['caller-supplied', 'caller-supplied']);
  });

  it('ranks routes under the minimum history last, flagged, without a score', () => {
    const record = rankRoutes({
      routes: [
        { id: 'new-perfect', history: history(2, 0, 10, 0) },
        { id: 'old-mediocre', history: history(6, 4, 900, 0.5) },
        { id: 'empty', history: [] },
      ],
      min_history: 5,
    });
    // Without a score, the insufficient ones are ordered by price, then id.
    expect(ids(record)).toEqual(['old-mediocre', 'empty', 'new-perfect']);
    const [, second, third] = record.ranking as JsonObject[];
    expect(second).toMatchObject({ insufficient_history: true, score: null, history_count: 0, success_rate: null });
    expect(third).toMatchObject({ insufficient_history: true, score: null, min_history: 5 });
  });

  it('breaks ties by price (unknown last), then by id', () => {
    const same = history(8, 2, 200, undefined);
    const record = rankRoutes({
      routes: [
        { id: 'b', price_usd: 0.05, history: same },
        { id: 'a', price_usd: 0.05, history: same },
        { id: 'c', history: same },
        { id: 'z', price_usd: 0.05, history: same },
      ],
    });
    // Same mean cost is taken from price when the history has none, so price ties the score too.
    expect(ids(record)).toEqual(['a', 'b', 'z', 'c']);
  });

  it('reports latency and cost as not provided, never guessed, and scores from what is there', () => {
    const record = rankRoutes({ routes: [{ id: 'bare', history: history(5, 0) }] });
    expect((record.ranking as JsonObject[])[0]).toMatchObject({ not_provided: ['latency_ms', 'cost_usd'], median_latency_ms: null, mean_cost_usd: null, price_usd: null });
  });

  const routeArb: fc.Arbitrary<CandidateRoute> = fc.record({
    id: fc.stringMatching(/^[a-z][a-z0-9-]{0,7}$/),
    price_usd: fc.option(fc.double({ min: 0, max: 10, noNaN: true }), { nil: undefined }),
    history: fc.array(
      fc.record({ success: fc.boolean(), latency_ms: fc.option(fc.double({ min: 0, max: 1e6, noNaN: true }), { nil: undefined }), cost_usd: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), { nil: undefined }) }),
      { maxLength: 12 },
    ),
  });
  const uniqueRoutes = fc.uniqueArray(routeArb, { selector: (r) => r.id, minLength: 1, maxLength: 8 });

  it('keeps scores in [0, 1], is deterministic, and does not depend on the order routes are supplied in', () => {
    fc.assert(
      fc.property(uniqueRoutes, fc.integer({ min: 1, max: 10 }), (routes, minHistory) => {
        const a = rankRoutes({ routes, min_history: minHistory });
        expect(canonicalText(a)).toBe(canonicalText(rankRoutes({ routes: [...routes].reverse(), min_history: minHistory })));
        const ranking = a.ranking as JsonObject[];
        let seenInsufficient = false;
        for (const e of ranking) {
          if (e.score !== null) {
            expect(e.score).toBeGreaterThanOrEqual(0);
            expect(e.score).toBeLessThanOrEqual(1);
          }
          if (e.insufficient_history) seenInsufficient = true;
          else expect(seenInsufficient).toBe(false);
        }
      }),
    );
  });

  it('carries amounts as exact decimal strings: the same record whether the caller sent strings or numbers', () => {
    const asStrings = rankRoutes({ routes: [{ id: 'r', price_usd: '0.3', history: [{ success: true, cost_usd: '0.1' }, { success: true, cost_usd: '0.2' }] }], min_history: 1 });
    const asNumbers = rankRoutes({ routes: [{ id: 'r', price_usd: 0.3, history: [{ success: true, cost_usd: 0.1 }, { success: true, cost_usd: 0.2 }] }], min_history: 1 });
    expect((asStrings.ranking as JsonObject[])[0]).toMatchObject({ mean_cost_usd: '0.15', price_usd: '0.3' });
    expect(canonicalText(asNumbers)).toBe(canonicalText(asStrings));
  });

  it('rounds a mean cost half to even at the millionth', () => {
    const meanOf = (costs: string[]) => (rankRoutes({ routes: [{ id: 'r', history: costs.map((cost_usd) => ({ success: true, cost_usd })) }], min_history: 1 }).ranking as JsonObject[])[0]!.mean_cost_usd;
    expect(meanOf(['0.000001', '0.000002'])).toBe('0.000002');
    expect(meanOf(['0.000002', '0.000003'])).toBe('0.000002');
    expect(meanOf(['0', '0', '0.000002'])).toBe('0.000001');
    expect(meanOf(['12345678.123456'])).toBe('12345678.123456');
  });
});
