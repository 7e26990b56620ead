import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nearestRank, scoreUptimeProbe, UPTIME_RULESET, type UptimeCheck } from './engine.ts';

const NOW = 1_767_225_600;
const ANCHOR = `0x${'ab'.repeat(32)}`;
const ok = (at: number, latency_ms?: number, status = 200): UptimeCheck => ({ at, ok: true, latency_ms, status });
const failed = (at: number): UptimeCheck => ({ at, ok: false, status: 503 });

describe('uptime probe scoring', () => {
  it('UP-SETTLES only with an anchor and every check ok', () => {
    const r = scoreUptimeProbe({ target: 'https://api.example/mcp', checks: [ok(NOW - 120, 80), ok(NOW - 60, 120)], settlement_anchor: ANCHOR }, NOW);
    expect(r).toMatchObject({ outcome: 'UP-SETTLES', ruleset: UPTIME_RULESET, availability: 1, settlementAnchor: ANCHOR, notProvided: [] });
  });

  it('UP-NO-SETTLE without an anchor, even when every check is ok', () => {
    const r = scoreUptimeProbe({ target: 't', checks: [ok(NOW - 60, 50)] }, NOW);
    expect(r).toMatchObject({ outcome: 'UP-NO-SETTLE', settlementAnchor: null, notProvided: ['settlement_anchor'] });
  });

  it('DEGRADED with an anchor when some check failed; DOWN when none is ok', () => {
    expect(scoreUptimeProbe({ target: 't', checks: [ok(NOW - 60), failed(NOW - 30)], settlement_anchor: ANCHOR }, NOW).outcome).toBe('DEGRADED');
    expect(scoreUptimeProbe({ target: 't', checks: [failed(NOW - 60)], settlement_anchor: ANCHOR }, NOW).outcome).toBe('DOWN');
    expect(scoreUptimeProbe({ target: 't', checks: [failed(NOW - 60)] }, NOW).outcome).toBe('DOWN');
  });

  it('computes availability, the window the checks span, and nearest-rank latency percentiles', () => {
    const checks = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((l, i) => ok(NOW - 1000 + i * 100, l));
    checks.push(failed(NOW - 1));
    const r = scoreUptimeProbe({ target: 't', checks, settlement_anchor: ANCHOR }, NOW);
    expect(r.window).toEqual({ from: NOW - 1000, to: NOW - 1, seconds: 999 });
    expect(r.availability).toBe(0.909091);
    expect(r.latencyMs).toEqual({ p50: 50, p90: 90, p95: 100, p99: 100, min: 10, max: 100 });
    expect(r.statusClasses).toEqual({ '2xx': 10, '5xx': 1 });
  });

  it('reports missing latency and status as not provided, never guessed', () => {
    const r = scoreUptimeProbe({ target: 't', checks: [{ at: NOW, ok: true }], settlement_anchor: ANCHOR }, NOW);
    expect(r.latencyMs).toBeNull();
    expect(r.notProvided).toEqual(['latency_ms', 'status']);
  });

  it('counts checks stamped after the probe, and lowercases the anchor', () => {
    const r = scoreUptimeProbe({ target: 't', checks: [ok(NOW + 10)], settlement_anchor: ANCHOR.toUpperCase().replace('0X', '0x') }, NOW);
    expect(r.checks).toMatchObject({ afterProbe: 1 });
    expect(r.settlementAnchor).toBe(ANCHOR);
  });

  it('refuses an empty list of checks rather than scoring nothing', () => {
    expect(() => scoreUptimeProbe({ target: 't', checks: [] }, NOW)).toThrow(RangeError);
  });

  const checkArb = fc.record(
    { at: fc.integer({ min: 0, max: NOW }), ok: fc.boolean(), latency_ms: fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: undefined }), status: fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }) },
    { requiredKeys: ['at', 'ok'] },
  );

  it('is deterministic, order-independent and bounded (property)', () => {
    fc.assert(
      fc.property(fc.array(checkArb, { minLength: 1, maxLength: 40 }), fc.boolean(), (checks, anchored) => {
        const input = { target: 't', checks, settlement_anchor: anchored ? ANCHOR : undefined };
        const r = scoreUptimeProbe(input, NOW);
        expect(scoreUptimeProbe({ ...input, checks: [...checks].reverse() }, NOW)).toEqual(r);
        expect(r.availability as number).toBeGreaterThanOrEqual(0);
        expect(r.availability as number).toBeLessThanOrEqual(1);
        const l = r.latencyMs as Record<string, number> | null;
        if (l) expect(l.min! <= l.p50! && l.p50! <= l.p90! && l.p90! <= l.p95! && l.p95! <= l.p99! && l.p99! <= l.max!).toBe(true);
        if (r.outcome === 'UP-SETTLES') expect(anchored && checks.every((c) => c.ok)).toBe(true);
        if (!anchored) expect(['UP-NO-SETTLE', 'DOWN']).toContain(r.outcome);
      }),
      { numRuns: 200 },
    );
  });

  it('nearest rank picks a supplied value', () => {
    expect(nearestRank([5], 99)).toBe(5);
    expect(nearestRank([1, 2, 3, 4], 50)).toBe(2);
  });
});
