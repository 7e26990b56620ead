import { z } from 'zod';

/**
 * z.json() validates recursively, so a body nested a few thousand levels deep overflows the stack
 * and would surface as a 500. The depth is therefore measured first, without recursion, and
 * anything deeper than the service-wide limit is refused as a 422 on its own field.
 */
export const MAX_JSON_DEPTH = 32;

/** Depth as the catalogue counts it: a scalar is 0, an array or object is 1 + its deepest member. */
export function jsonDepthWithin(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > limit) return false;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children) pending.push([child, depth + 1]);
  }
  return true;
}

export function boundedJson<T extends z.ZodType>(schema: T) {
  return z.custom<unknown>((v) => jsonDepthWithin(v, MAX_JSON_DEPTH), `must not nest deeper than ${MAX_JSON_DEPTH} levels`).pipe(schema);
}
