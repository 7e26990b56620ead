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

/**
 * Whether `value` is JSON data (null, a boolean, a finite number, a string, or arrays and plain
 * objects of these) at most `limit` deep, depth counted as jsonDepthWithin counts it. One pass
 * that allocates nothing: the schemas of caller content run it on every paid call, where
 * z.json()'s generic walk was a measurable share of the CPU. It recurses, but never more than
 * `limit` + 1 frames deep whatever the input, so no nesting can overflow the stack.
 */
export function isJsonWithin(value: unknown, limit: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (limit === 0) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isJsonWithin(value[i], limit - 1)) return false;
    return true;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return false;
  for (const key in value) if (!isJsonWithin((value as Record<string, unknown>)[key], limit - 1)) return false;
  return true;
}

/** Why a value failed isJsonWithin: for the one issue a schema reports. */
export function jsonProblem(value: unknown, limit: number): string {
  if (value === undefined) return 'is required';
  return jsonDepthWithin(value, limit) ? 'must be JSON data' : `must not nest deeper than ${limit} levels`;
}
