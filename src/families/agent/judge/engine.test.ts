import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gradeResponsePair, JUDGE_RULESET, type JudgeCriterion, type JudgeInput } from './engine.ts';
import { editDistance, ngramF1, patternShape, schemaViolation, unsupportedSchemaKeywords } from './metrics.ts';

const NOW = 1_767_225_600;
type Row = { id: string; a: { score: number; passed: boolean; detail: string }; b: { score: number; passed: boolean; detail: string } };
const grade = (rubric: JudgeCriterion[], pair: Partial<JudgeInput> = {}) =>
  gradeResponsePair({ response_a: 'The capital of France is Paris.', response_b: 'I think it is Lyon.', rubric, ...pair }, NOW);
const rows = (r: ReturnType<typeof grade>) => r.criteria as unknown as Row[];

describe('judge engine', () => {
  it('grades contains / not_contains, case-insensitive unless asked', () => {
    const r = grade([
      { id: 'paris', weight: 2, type: 'contains', text: 'PARIS' },
      { id: 'exact', weight: 1, type: 'contains', text: 'PARIS', case_sensitive: true },
      { id: 'no-lyon', weight: 1, type: 'not_contains', text: 'lyon' },
    ]);
    expect(rows(r).map((c) => [c.id, c.a.score, c.b.score])).toEqual([['paris', 1, 0], ['exact', 0, 0], ['no-lyon', 1, 0]]);
    expect(r).toMatchObject({ outcome: 'GRADED', ruleset: JUDGE_RULESET, winner: 'a', grade: { a: 0.75, b: 0 }, unassessable: [] });
  });

  it('runs a safe regex and lists an unsafe one as unassessable', () => {
    const r = grade([
      { id: 're', weight: 1, type: 'regex', pattern: '^The\\s\\w+', flags: 'i' },
      { id: 'evil', weight: 1, type: 'regex', pattern: '(a+)+$' },
      { id: 'backref', weight: 1, type: 'regex', pattern: '(a)\\1' },
    ]);
    expect(rows(r)[0]).toMatchObject({ a: { passed: true }, b: { passed: false } });
    expect((r.unassessable as Array<{ id: string }>).map((u) => u.id)).toEqual(['evil', 'backref']);
  });

  it('refuses a pattern whose backtracking would be too costly for the response length', () => {
    const r = grade([{ id: 'poly', weight: 1, type: 'regex', pattern: '\\d+\\d+\\d+x' }], { response_a: '1'.repeat(5000) });
    expect(r).toMatchObject({ outcome: 'INSUFFICIENT-DATA', grade: null, winner: null });
    expect((r.unassessable as Array<{ reason: string }>)[0]!.reason).toMatch(/too costly/);
  });

  it('validates JSON against the supported schema subset, and lists unsupported keywords', () => {
    const schema = { type: 'object', required: ['city'], properties: { city: { type: 'string', enum: ['Paris', 'Lyon'] }, tags: { type: 'array', items: { type: 'string', maxLength: 3 } } } };
    const r = grade([{ id: 'json', weight: 1, type: 'json_schema', schema }], { response_a: '{"city":"Paris","tags":["eu"]}', response_b: '{"city":"Berlin"}' });
    expect(rows(r)[0]).toMatchObject({ a: { passed: true }, b: { passed: false, detail: '$.city: not one of the enum values' } });
    const notJson = grade([{ id: 'json', weight: 1, type: 'json_schema', schema }], { response_a: 'Paris' });
    expect(rows(notJson)[0]!.a.detail).toBe('response is not valid JSON');
    const unsupported = grade([{ id: 'json', weight: 1, type: 'json_schema', schema: { type: 'object', additionalProperties: false } }]);
    expect(unsupported).toMatchObject({ outcome: 'INSUFFICIENT-DATA', unassessable: [{ id: 'json', reason: expect.stringMatching(/additionalProperties/) }] });
  });

  it('checks length bounds in characters or words', () => {
    const r = grade([
      { id: 'words', weight: 1, type: 'length', unit: 'words', min: 6 },
      { id: 'chars', weight: 1, type: 'length', unit: 'chars', max: 20 },
    ]);
    expect(rows(r).map((c) => [c.a.passed, c.b.passed])).toEqual([[true, false], [false, true]]);
    expect(r).toMatchObject({ winner: 'tie', grade: { a: 0.5, b: 0.5 } });
  });

  it('compares against a reference by edit distance and n-gram overlap, and needs the reference', () => {
    const rubric: JudgeCriterion[] = [
      { id: 'ed', weight: 1, type: 'edit_distance' },
      { id: 'ng', weight: 1, type: 'ngram_overlap', n: 2 },
    ];
    const r = grade(rubric, { reference: 'The capital of France is Paris.' });
    expect(rows(r).map((c) => c.a.score)).toEqual([1, 1]);
    expect(r).toMatchObject({ winner: 'a' });
    const noReference = grade(rubric);
    expect(noReference).toMatchObject({ outcome: 'INSUFFICIENT-DATA', grade: null, winner: null });
    expect((noReference.unassessable as Array<{ reason: string }>).map((u) => u.reason)).toEqual(['reference is missing', 'reference is missing']);
    const short = grade([{ id: 'ng', weight: 1, type: 'ngram_overlap', n: 3 }], { reference: 'Paris' });
    expect((short.unassessable as Array<{ reason: string }>)[0]!.reason).toBe('reference has fewer than 3 words');
    const long = grade([{ id: 'ed', weight: 1, type: 'edit_distance' }], { reference: 'x'.repeat(4001) });
    expect((long.unassessable as Array<{ reason: string }>)[0]!.reason).toMatch(/at most 4000/);
  });

  it('keeps assessable criteria when others are not, and binds the record to its inputs by digest', () => {
    const r = grade([{ id: 'ed', weight: 5, type: 'edit_distance' }, { id: 'paris', weight: 1, type: 'contains', text: 'paris' }], { prompt: 'Capital of France?' });
    expect(r).toMatchObject({ outcome: 'GRADED', grade: { a: 1, b: 0 }, unassessable: [{ id: 'ed' }] });
    expect(r.subject).toMatchObject({ referenceSha256: null, promptSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  const criterionArb: fc.Arbitrary<JudgeCriterion> = fc.oneof(
    fc.record({ id: fc.constant('c'), weight: fc.integer({ min: 1, max: 10 }), type: fc.constant('contains' as const), text: fc.string({ minLength: 1, maxLength: 3 }) }),
    fc.record({ id: fc.constant('l'), weight: fc.integer({ min: 1, max: 10 }), type: fc.constant('length' as const), unit: fc.constantFrom('chars' as const, 'words' as const), max: fc.integer({ min: 0, max: 40 }) }),
    fc.record({ id: fc.constant('e'), weight: fc.integer({ min: 1, max: 10 }), type: fc.constant('edit_distance' as const) }),
    fc.record({ id: fc.constant('n'), weight: fc.integer({ min: 1, max: 10 }), type: fc.constant('ngram_overlap' as const), n: fc.integer({ min: 1, max: 3 }) }),
  );

  it('is deterministic, bounded, and symmetric in the pair (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 }), fc.option(fc.string({ maxLength: 60 }), { nil: undefined }), fc.array(criterionArb, { minLength: 1, maxLength: 5 }), (a, b, reference, rubric) => {
        const input = { response_a: a, response_b: b, reference, rubric };
        const r = gradeResponsePair(input, NOW);
        expect(gradeResponsePair(input, NOW)).toEqual(r);
        const swapped = gradeResponsePair({ ...input, response_a: b, response_b: a }, NOW);
        const g = r.grade as { a: number; b: number } | null;
        if (g === null) {
          expect(r.outcome).toBe('INSUFFICIENT-DATA');
          return;
        }
        expect(g.a).toBeGreaterThanOrEqual(0);
        expect(g.a).toBeLessThanOrEqual(1);
        expect(swapped.grade).toEqual({ a: g.b, b: g.a });
        expect(swapped.winner).toBe(r.winner === 'a' ? 'b' : r.winner === 'b' ? 'a' : 'tie');
      }),
      { numRuns: 200 },
    );
  });
});

describe('judge metrics', () => {
  it('edit distance and n-gram F1 on known pairs', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(ngramF1('the cat sat', 'the cat sat', 2)).toBe(1);
    expect(ngramF1('the cat', 'a dog', 1)).toBe(0);
  });

  it('reads the backtracking shape of patterns', () => {
    expect(patternShape('^abc$')).toEqual({ unbounded: 0, boundedChoices: 1 });
    expect(patternShape('a+b*c?')).toEqual({ unbounded: 2, boundedChoices: 2 });
    expect(patternShape('x{2,5}')).toEqual({ unbounded: 0, boundedChoices: 4 });
    expect(patternShape('(?:ab)+')).toMatchObject({ unbounded: 1 });
    expect(patternShape('(a|b)+').unsafe).toBeDefined();
    expect(patternShape('((a)*)*').unsafe).toBeDefined();
    expect(patternShape('\\(a+\\)+').unsafe).toBeUndefined();
    expect(patternShape('[(a+)]+').unsafe).toBeUndefined();
  });

  it('schema subset: types, required, unsupported keywords anywhere', () => {
    expect(schemaViolation(3, { type: 'integer' })).toBeUndefined();
    expect(schemaViolation(3.5, { type: 'integer' })).toMatch(/expected type integer/);
    expect(schemaViolation({}, { required: ['toString'] })).toMatch(/missing required member toString/);
    expect(unsupportedSchemaKeywords({ properties: { a: { oneOf: [] } }, title: 'x' })).toEqual(['oneOf']);
  });
});
