import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRESHNESS_TIERS, buildSignedSnapshot, citationRejection, freshnessOf, publishedSnapshotRules, rowRejection } from './engine.ts';
import { signedSnapshotInputSchema, type SignedSnapshotInput } from './input.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';

const NOW = 1_767_225_600;
const good: SignedSnapshotInput = {
  series: 'EUR/USD',
  rows: [{ date: '2025-12-31', value: 1.04 }],
  citations: ['https://data.example.org/eurusd'],
  fetchedAt: NOW - 60,
};

describe('signed snapshot engine', () => {
  it('seals usable rows and citations with tier and age: SEALED', () => {
    const core = buildSignedSnapshot(good, NOW);
    expect(core.outcome).toBe('SEALED');
    expect(core.freshness).toEqual({ tier: 'LIVE', fetchedAt: NOW - 60, age_seconds: 60 });
    expect(core.missing).toEqual([]);
    expect(core.ruleset).toEqual({ id: 'signed-snapshot', version: '1', usability: 'snapshot-usability/v2', freshness: FRESHNESS_TIERS.version });
    expect(core.stampedAt).toBe(NOW);
    expect(core.evidence_source).toBe('caller-supplied');
  });

  it.each([
    [0, 'LIVE'],
    [300, 'LIVE'],
    [301, 'FRESH'],
    [3_600, 'FRESH'],
    [3_601, 'RECENT'],
    [86_400, 'RECENT'],
    [86_401, 'STALE'],
    [604_800, 'STALE'],
    [604_801, 'ARCHIVAL'],
    [-60, 'LIVE'],
    [-61, 'FUTURE-DATED'],
  ])('age %i s is %s (tier boundaries are inclusive)', (age, tier) => {
    expect(freshnessOf(NOW - age, NOW)).toEqual({ tier, fetchedAt: NOW - age, age_seconds: age });
  });

  it('reports freshness NOT-PROVIDED and fetchedAt missing without fetchedAt', () => {
    const { fetchedAt: _, ...noAnchor } = good;
    const core = buildSignedSnapshot(noAnchor, NOW);
    expect(core.freshness).toEqual({ tier: 'NOT-PROVIDED', fetchedAt: null, age_seconds: null });
    expect(core.missing).toEqual(['fetchedAt']);
    expect(core.outcome).toBe('SEALED');
  });

  it('gives INSUFFICIENT-DATA with no usable rows, or no usable citations', () => {
    const noRows = buildSignedSnapshot({ ...good, rows: [{ date: '2025-12-31' }, 'x', null] }, NOW);
    expect(noRows.outcome).toBe('INSUFFICIENT-DATA');
    expect(noRows.missing).toEqual(['rows']);
    expect(noRows.rows_rejected).toEqual([
      { index: 0, reason: 'no-numeric-value' },
      { index: 1, reason: 'not-an-object' },
      { index: 2, reason: 'not-an-object' },
    ]);
    const noCitations = buildSignedSnapshot({ ...good, citations: [] }, NOW);
    expect(noCitations.outcome).toBe('INSUFFICIENT-DATA');
    expect(noCitations.missing).toEqual(['citations']);
    const neither = buildSignedSnapshot({ series: 's', rows: [], citations: [] }, NOW);
    expect(neither.missing).toEqual(['rows', 'citations', 'fetchedAt']);
  });

  it('keeps usable items verbatim and lists the others by index', () => {
    const core = buildSignedSnapshot({ ...good, rows: [{ v: 1 }, [1], { v: 2, note: 'x' }] }, NOW);
    expect(core.rows).toEqual([{ v: 1 }, { v: 2, note: 'x' }]);
    expect(core.rows_count).toBe(2);
    expect(core.rows_rejected).toEqual([{ index: 1, reason: 'not-an-object' }]);
  });

  it('defines a usable row and a usable citation precisely', () => {
    expect(rowRejection({ value: 0 })).toBeUndefined();
    expect(rowRejection({})).toBe('no-numeric-value');
    expect(rowRejection({ value: '1.2' })).toBe('no-numeric-value');
    expect(citationRejection('https://example.org/a')).toBeUndefined();
    expect(citationRejection('http://example.org')).toBeUndefined();
    expect(citationRejection({ url: 'https://example.org', title: 't' })).toBeUndefined();
    expect(citationRejection({ doi: '10.1000/xyz123' })).toBeUndefined();
    expect(citationRejection('ftp://example.org')).toBe('not-an-http-url');
    expect(citationRejection('example.org')).toBe('not-an-http-url');
    expect(citationRejection({ title: 'a book' })).toBe('no-url-or-doi');
    expect(citationRejection({ url: 'javascript:alert(1)', doi: 'nope' })).toBe('url-not-http-and-doi-malformed');
    expect(citationRejection(42)).toBe('not-a-string-or-object');
    // Written out in full (v2): look-alikes the URL parser alone accepted.
    for (const lookAlike of ['https:/example.org', 'https:example.org', 'https://\u200bexample.org', 'https://exa mple.org', ' https://example.org', 'https://example.org/\u202e'])
      expect(citationRejection(lookAlike), JSON.stringify(lookAlike)).toBe('not-an-http-url');
    expect(citationRejection('HTTPS://Example.org/Path?q=1#f')).toBeUndefined();
  });

  it('refuses malformed input with the field named', () => {
    const cases: Array<[unknown, string]> = [
      [{ rows: [], citations: [] }, 'series'],
      [{ series: 's', citations: [] }, 'rows'],
      [{ series: 's', rows: [] }, 'citations'],
      [{ series: 's', rows: [], citations: [], fetchedAt: 1_767_225_600_000 }, 'fetchedAt'],
      [{ series: 's', rows: [], citations: [], fetchedAt: -1 }, 'fetchedAt'],
      [{ series: 's', rows: {}, citations: [] }, 'rows'],
    ];
    for (const [input, path] of cases) {
      const parsed = signedSnapshotInputSchema.safeParse(input);
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues[0]!.path.join('.')).toBe(path);
    }
  });

  it('publishes the tier table it applies', () => {
    const rules = publishedSnapshotRules() as { freshness: { version: string; tiers: unknown[] } };
    expect(rules.freshness.version).toBe('freshness-tiers/v1');
    expect(rules.freshness.tiers).toHaveLength(5);
  });

  it('is deterministic, and only stampedAt varies with the clock (property)', () => {
    const row = fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.integer(), fc.string({ maxLength: 6 })));
    const input = fc.record({
      series: fc.string({ minLength: 1, maxLength: 20 }),
      rows: fc.array(row, { maxLength: 5 }),
      citations: fc.array(fc.oneof(fc.webUrl(), fc.string({ maxLength: 10 })), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(input, fc.integer({ min: 1_000_000, max: 2_000_000_000 }), (i, now) => {
        const a = buildSignedSnapshot(i, now);
        expect(canonicalSha256(buildSignedSnapshot(structuredClone(i), now))).toBe(canonicalSha256(a));
        const { stampedAt: _a, ...restA } = a;
        const { stampedAt: _b, ...restB } = buildSignedSnapshot(i, now + 1000);
        expect(restB).toEqual(restA);
      }),
    );
  });
});
