import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalText, type JsonObject } from '../../../signing/rfc8785.ts';
import { composeBrief, type BriefInput } from './engine.ts';
import { BRIEF_EXAMPLE } from './operation.ts';

const NOW = 1_767_225_600;
const brief = (input: BriefInput) => composeBrief(input, NOW) as JsonObject & { points: Array<JsonObject & { quote: string; start: number; end: number; source_id: string }>; conflicts: JsonObject[]; sources: JsonObject[] };

describe('the extractive brief', () => {
  it('quotes sentences verbatim, with offsets that point at them in the source', () => {
    const record = brief(BRIEF_EXAMPLE);
    expect(record['outcome']).toBe('BRIEF');
    expect(record.points.length).toBeGreaterThan(0);
    for (const p of record.points) {
      const source = BRIEF_EXAMPLE.sources.find((s) => s.id === p.source_id)!;
      expect(Array.from(source.text).slice(p.start, p.end).join('')).toBe(p.quote);
    }
    expect(record.points[0]!.quote).toMatch(/momentum premium/);
  });

  it('two sources that disagree on a number give a conflict with both values', () => {
    expect(brief(BRIEF_EXAMPLE).conflicts).toContainEqual({ term: 'premium', claims: [expect.objectContaining({ source_id: 'jt1993', value: '1%' }), expect.objectContaining({ source_id: 'survey', value: '0.6%' })] });
  });

  it('one usable source gives INSUFFICIENT-DATA, and the unusable one is listed with why', () => {
    const record = brief({ ...BRIEF_EXAMPLE, sources: [BRIEF_EXAMPLE.sources[0]!, { id: 'empty', title: 'Empty', text: 'n/a' }] });
    expect(record).toMatchObject({ outcome: 'INSUFFICIENT-DATA', points: [] });
    expect(record.sources).toContainEqual(expect.objectContaining({ id: 'empty', usable: false, reason: 'fewer than 40 characters of text' }));
  });

  it('gives the same record bytes for the sources in any order, even among equal-scoring sentences', () => {
    const repeated = 'The premium is stable across samples and periods.';
    const sources = [
      ...BRIEF_EXAMPLE.sources,
      { id: 'a-copy', title: 'Copy A', text: `${repeated} ${repeated}` },
      { id: 'b-copy', title: 'Copy B', text: `${repeated} Another sentence about premium size here.` },
    ];
    const expected = canonicalText(brief({ ...BRIEF_EXAMPLE, sources }));
    fc.assert(
      fc.property(fc.shuffledSubarray(sources, { minLength: sources.length, maxLength: sources.length }), (shuffled) => {
        expect(canonicalText(brief({ ...BRIEF_EXAMPLE, sources: shuffled }))).toBe(expected);
      }),
      { numRuns: 40 },
    );
  });
});
