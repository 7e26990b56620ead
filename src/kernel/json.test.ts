import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, isJsonWithin, jsonData, jsonDepthWithin, jsonProblem, jsonTextDepth, recordedJsonData, recordedJsonObject } from './json.ts';
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

describe('JSON the service recorded, read back from its log', () => {
  it('is accepted as it was written, whatever it holds and however deep a record nests caller JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const readBack = JSON.parse(JSON.stringify(value)) as unknown;
        expect(recordedJsonData.safeParse(readBack).success).toBe(true);
        expect(recordedJsonObject.safeParse({ record: readBack }).success).toBe(true);
      }),
    );
    // A signed record holds caller JSON of the deepest accepted kind a few levels down.
    const record = { input: { claim: nested(MAX_JSON_DEPTH) } };
    expect(jsonData.safeParse(record).success).toBe(false);
    expect(recordedJsonObject.safeParse(record).success).toBe(true);
  });

  it('refuses what no JSON text gives back, and an object schema refuses other JSON', () => {
    for (const value of [undefined, Number.NaN, 1n, new Date(0), { a: undefined }, { a: [Number.POSITIVE_INFINITY] }]) {
      expect(recordedJsonData.safeParse(value).success).toBe(false);
      expect(recordedJsonObject.safeParse({ value }).success).toBe(false);
    }
    for (const value of [null, [], 'x', 1]) expect(recordedJsonObject.safeParse(value).error!.issues[0]!.message).toBe('must be a JSON object');
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
