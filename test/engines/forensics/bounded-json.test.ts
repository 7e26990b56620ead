import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_JSON_DEPTH, boundedJson, jsonDepthWithin } from '../../../src/engines/bounded-json.ts';

const nested = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));

describe('bounded JSON', () => {
  it('measures depth without recursion: scalars 0, containers 1 + deepest member', () => {
    expect(jsonDepthWithin(1, 0)).toBe(true);
    expect(jsonDepthWithin([], 0)).toBe(false);
    expect(jsonDepthWithin({ a: [1] }, 2)).toBe(true);
    expect(jsonDepthWithin({ a: [1] }, 1)).toBe(false);
    expect(jsonDepthWithin(nested(100_000), MAX_JSON_DEPTH)).toBe(false);
  });

  it('refuses too deep a value as an issue, not a stack overflow, and passes others on', () => {
    const schema = z.object({ payload: boundedJson(z.array(z.json())) });
    const deep = schema.safeParse({ payload: nested(50_000) });
    expect(deep.error!.issues[0]).toMatchObject({ path: ['payload'], message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` });
    expect(schema.safeParse({ payload: nested(MAX_JSON_DEPTH) }).success).toBe(true);
    expect(schema.safeParse({ payload: nested(MAX_JSON_DEPTH + 1) }).success).toBe(false);
    expect(schema.safeParse({ payload: 'x' }).error!.issues[0]!.path).toEqual(['payload']);
  });
});
