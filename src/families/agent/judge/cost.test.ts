import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../catalog/index.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { gradeResponsePair, JUDGE_COST_LIMIT, rubricCost, type JudgeCriterion, type JudgeInput } from './engine.ts';
import { editDistance } from './metrics.ts';

const NOW = 1_767_225_600;
type Side = { score: number; passed: boolean; detail: string };
type Row = { id: string; a: Side; b: Side };
const rows = (r: ReturnType<typeof gradeResponsePair>) => r.criteria as Row[];
const unassessable = (r: ReturnType<typeof gradeResponsePair>) => r.unassessable as Array<{ id: string; reason: string }>;
const msOf = (f: () => unknown): number => {
  const start = performance.now();
  f();
  return performance.now() - start;
};
const judge = findOperation('mcp.eval.judge')!;
const precheck = (input: JudgeInput) => judge.precheck!(judge.input.parse(input), {} as never, NOW);

describe('judge: responses that are not JSON a schema can hold', () => {
  const enumOne: JudgeCriterion = { id: 'e', weight: 1, type: 'json_schema', schema: { enum: [1] } };

  it('9,999 nested brackets fail the criterion with the reason instead of overflowing the stack', () => {
    const r = gradeResponsePair({ response_a: '['.repeat(9999) + ']'.repeat(9999), response_b: '1', rubric: [enumOne] }, NOW);
    expect(rows(r)[0]).toMatchObject({ a: { passed: false, detail: 'response JSON nests deeper than 32 levels' }, b: { passed: true } });
    expect(r).toMatchObject({ outcome: 'GRADED', winner: 'b' });
  });

  it('reads 32 levels and no more', () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const r = gradeResponsePair({ response_a: nested(32), response_b: nested(33), rubric: [{ id: 'arr', weight: 1, type: 'json_schema', schema: { type: 'array' } }] }, NOW);
    expect(rows(r)[0]).toMatchObject({ a: { passed: true }, b: { passed: false, detail: 'response JSON nests deeper than 32 levels' } });
  });

  it('a number JSON cannot carry, or a member named twice, fails as not I-JSON', () => {
    const r = gradeResponsePair({ response_a: '1e999', response_b: '{"a":1,"a":1}', rubric: [enumOne, { id: 'o', weight: 1, type: 'json_schema', schema: { type: 'object' } }] }, NOW);
    expect(rows(r).map((row) => [row.a.detail, row.b.detail])).toEqual([
      [expect.stringMatching(/^response is not I-JSON \(RFC 7493\): \(root\): /), expect.stringMatching(/^response is not I-JSON \(RFC 7493\): a: /)],
      [expect.stringMatching(/^response is not I-JSON/), expect.stringMatching(/^response is not I-JSON/)],
    ]);
  });
});

describe('judge: cost of the whole call', () => {
  const ducks = 'ǅ'.repeat(7071);

  it('prices a regex by its flags: [^y]*y with iu on 7,071 ǅ (0.64 s each) is not run', () => {
    const rubric: JudgeCriterion[] = Array.from({ length: 32 }, (_, i) => ({ id: `r${i}`, weight: 1, type: 'regex', pattern: '[^y]*y', flags: 'iu' }));
    let r: ReturnType<typeof gradeResponsePair> | undefined;
    expect(msOf(() => (r = gradeResponsePair({ response_a: ducks, response_b: ducks, rubric }, NOW)))).toBeLessThan(1000);
    expect(r).toMatchObject({ outcome: 'INSUFFICIENT-DATA' });
    expect(unassessable(r!)[0]!.reason).toMatch(/too costly .* flags "iu"/);
  });

  it('sums regex work over the rubric and both responses, counting identical work once', () => {
    const pair = { response_a: 'a'.repeat(7071), response_b: 'b'.repeat(7071) };
    const regex = (id: string, pattern: string): JudgeCriterion => ({ id, weight: 1, type: 'regex', pattern });
    const identical = Array.from({ length: 32 }, (_, i) => regex(`r${i}`, '[^y]*y'));
    expect(rubricCost({ ...pair, rubric: identical }).total).toBe(2 * 7071 ** 2);
    expect(precheck({ ...pair, rubric: identical })).toBeUndefined();
    const distinct = ['[^y]*y', '[^x]*x', '.*y'].map((p, i) => regex(`r${i}`, p));
    expect(rubricCost({ ...pair, rubric: distinct }).total).toBeGreaterThan(JUDGE_COST_LIMIT);
    expect(precheck({ ...pair, rubric: distinct })).toMatchObject({ status: 422, error: 'rubric_too_costly', outcome: 'INVALID-INPUT', issues: [{ path: 'rubric.0' }, { path: 'rubric.1' }, { path: 'rubric.2' }] });
    expect(precheck({ ...pair, response_b: pair.response_a, rubric: distinct.slice(0, 2) })).toBeUndefined();
  });

  it('32 edit-distance criteria on 4,000-character texts (23.5 s) compute each distance once', () => {
    const input = { response_a: 'ab'.repeat(2000), response_b: 'ba'.repeat(2000), reference: 'cd'.repeat(2000) };
    const rubric: JudgeCriterion[] = Array.from({ length: 32 }, (_, i) => ({ id: `e${i}`, weight: 1, type: 'edit_distance', min_similarity: i / 32 }));
    let r: ReturnType<typeof gradeResponsePair> | undefined;
    expect(msOf(() => (r = gradeResponsePair({ ...input, rubric }, NOW)))).toBeLessThan(3000);
    expect(new Set(rows(r!).map((row) => row.a.score))).toEqual(new Set([0]));
    expect(precheck({ ...input, rubric })).toBeUndefined();
  });

  it('checks 9,999 array items against a 10,000-value enum in one lookup each', () => {
    const response = '[' + Array(9999).fill('0').join(',') + ']';
    const schema = { type: 'array', items: { enum: [...Array.from({ length: 9999 }, (_, i) => i + 1), 0] } };
    let r: ReturnType<typeof gradeResponsePair> | undefined;
    expect(msOf(() => (r = gradeResponsePair({ response_a: response, response_b: '[1,"1"]', rubric: [{ id: 's', weight: 1, type: 'json_schema', schema }] }, NOW)))).toBeLessThan(1000);
    expect(rows(r!)[0]).toMatchObject({ a: { passed: true }, b: { passed: false, detail: '$[1]: not one of the enum values' } });
  });

  const criterionArb: fc.Arbitrary<JudgeCriterion> = fc.oneof(
    fc.record({ id: fc.constant('c'), weight: fc.constant(1), type: fc.constantFrom('contains' as const, 'not_contains' as const), text: fc.constantFrom('a', 'B', 'ab'), case_sensitive: fc.boolean() }),
    fc.record({ id: fc.constant('r'), weight: fc.constant(1), type: fc.constant('regex' as const), pattern: fc.constantFrom('a', '^b', 'a.?b', '\\d'), flags: fc.constantFrom('', 'i') }),
    fc.record({ id: fc.constant('j'), weight: fc.constant(1), type: fc.constant('json_schema' as const), schema: fc.constantFrom<JsonObject>({ type: 'array' }, { items: { enum: [1, 'a'] } }, { enum: [[1]] }) }),
    fc.record({ id: fc.constant('e'), weight: fc.constant(1), type: fc.constant('edit_distance' as const), min_similarity: fc.constantFrom(0.2, 0.8) }),
    fc.record({ id: fc.constant('n'), weight: fc.constant(1), type: fc.constant('ngram_overlap' as const), n: fc.integer({ min: 1, max: 2 }) }),
  );
  const textArb = fc.oneof(fc.constantFrom('[1]', '[1,"a"]', '["a",2]', 'a b', '1'), fc.string({ maxLength: 12 }));

  it('a rubric measured together scores every criterion as measured alone (property)', () => {
    fc.assert(
      fc.property(textArb, textArb, textArb, fc.array(criterionArb, { minLength: 1, maxLength: 8 }), (a, b, reference, criteria) => {
        const rubric = criteria.map((c, i) => ({ ...c, id: `${c.id}${i}` }));
        const together = gradeResponsePair({ response_a: a, response_b: b, reference, rubric }, NOW);
        const alone = rubric.flatMap((c) => rows(gradeResponsePair({ response_a: a, response_b: b, reference, rubric: [c] }, NOW)));
        expect(rows(together)).toEqual(alone);
      }),
      { numRuns: 300 },
    );
  });

  it('edit distance on integer rows equals the textbook recurrence (property)', () => {
    const naive = (x: string[], y: string[]): number => {
      const d = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
      for (let i = 1; i <= x.length; i++) for (let j = 1; j <= y.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
      return d[x.length]![y.length]!;
    };
    const text = fc.array(fc.constantFrom('a', 'b', 'é', '😀', 'ǅ'), { maxLength: 12 }).map((p) => p.join(''));
    fc.assert(
      fc.property(text, text, (x, y) => {
        expect(editDistance(x, y)).toBe(naive(Array.from(x), Array.from(y)));
      }),
      { numRuns: 500 },
    );
  });
});
