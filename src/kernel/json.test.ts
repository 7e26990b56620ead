import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_JSON_DEPTH, isJsonWithin, jsonData, jsonDepthWithin, jsonProblem, jsonTextDepth } from './json.ts';
import type { JsonValue } from '../signing/rfc8785.ts';

const nested = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

describe('bounded JSON', () => {
  it('measures depth without recursion: scalars 0, containers 1 + deepest member', () => {
    expect(jsonDepthWithin(1, 0)).toBe(true);
    expect(jsonDepthWithin([], 0)).toBe(false);
    expect(jsonDepthWithin({ a: [1] }, 2)).toBe(true);
    expect(jsonDepthWithin({ a: [1] }, 1)).toBe(false);
    expect(jsonDepthWithin(nested(100_000), MAX_JSON_DEPTH)).toBe(false);
  });

  it('refuses too deep a value as an issue on its field, not a stack overflow, and passes others on', () => {
    const schema = z.object({ payload: jsonData.pipe(z.array(z.custom<JsonValue>())) });
    const deep = schema.safeParse({ payload: nested(50_000) });
    expect(deep.error!.issues[0]).toMatchObject({ path: ['payload'], message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` });
    expect(schema.safeParse({ payload: nested(MAX_JSON_DEPTH) }).success).toBe(true);
    expect(schema.safeParse({ payload: nested(MAX_JSON_DEPTH + 1) }).success).toBe(false);
    expect(schema.safeParse({ payload: 'x' }).error!.issues[0]!.path).toEqual(['payload']);
  });

  it('checks JSON data and its depth in one pass, agreeing with the depth measure', () => {
    for (const value of [null, true, 0, -1.5, 'x', [], {}, { a: [1, { b: null }] }, JSON.parse('{"__proto__": {"x": 1}}')]) expect(isJsonWithin(value, MAX_JSON_DEPTH)).toBe(true);
    for (const value of [undefined, Number.NaN, Number.POSITIVE_INFINITY, 1n, () => 1, new Date(0), new Map(), { a: undefined }, [1, , 3]]) expect(isJsonWithin(value, MAX_JSON_DEPTH)).toBe(false);
    for (const depth of [1, 5, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1]) {
      const value = nested(depth);
      expect(isJsonWithin(value, MAX_JSON_DEPTH)).toBe(jsonDepthWithin(value, MAX_JSON_DEPTH));
    }
    expect(isJsonWithin(nested(100_000), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonProblem(nested(100_000), MAX_JSON_DEPTH)).toBe(`must not nest deeper than ${MAX_JSON_DEPTH} levels`);
    expect(jsonProblem({ at: new Date(0) }, MAX_JSON_DEPTH)).toBe('must be JSON data');
    expect(jsonProblem(undefined, MAX_JSON_DEPTH)).toBe('is required');
  });
});

describe('the depth of a JSON text, counted without parsing it', () => {
  it('counts brackets outside strings, escaped quotes included, as a parse would nest them', () => {
    expect(jsonTextDepth('1')).toBe(0);
    expect(jsonTextDepth('[{"a":[1,2]},{}]')).toBe(3);
    expect(jsonTextDepth('{"a":"[[[[\\"[[["}')).toBe(1);
    // The same count as jsonDepthWithin's over the parsed value.
    expect(jsonTextDepth(JSON.stringify(nested(40)))).toBe(40);
    expect([jsonDepthWithin(nested(40), 40), jsonDepthWithin(nested(40), 39)]).toEqual([true, false]);
  });

  it('reads broken JSON too, and an unclosed one as deep as it opens', () => {
    expect(jsonTextDepth('{"a": [1, 2, {"b": ')).toBe(3);
    expect(jsonTextDepth('['.repeat(100_000))).toBe(100_000);
    expect(jsonTextDepth(']]]}}[')).toBe(1);
  });
});
