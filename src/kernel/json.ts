import { z } from 'zod';
import { isJsonObject, type JsonObject, type JsonValue } from '../signing/rfc8785.ts';

/**
 * How deep caller JSON may nest. A validator that recursed without a bound would let a body
 * nested a few thousand levels deep overflow the stack and surface as a 500; here anything deeper
 * is refused as a 422 on its own field.
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


/**
 * How deep the brackets of a JSON text nest, counted outside its strings, without parsing it: one
 * pass over text that may be broken JSON (which a repair keeps as deep), so an operation can
 * refuse too deep a document before its quote instead of overflowing the stack after it.
 */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) deepest = Math.max(deepest, ++depth);
    else if ((c === 0x7d || c === 0x5d) && depth > 0) depth--;
  }
  return deepest;
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

/**
 * Any JSON value, nested at most MAX_JSON_DEPTH deep, checked in one pass that cannot overflow
 * the stack however deep the input. The schema of free-form caller JSON everywhere.
 */
export const jsonData = z.custom<JsonValue>((v) => isJsonWithin(v, MAX_JSON_DEPTH), {
  error: (issue) => jsonProblem(issue.input, MAX_JSON_DEPTH),
});

/** A JSON object, the same way; documented in /openapi.json as an object of any members. */
export const jsonObjectData = z
  .custom<JsonObject>((v) => isJsonObject(v) && isJsonWithin(v, MAX_JSON_DEPTH), {
    error: (issue) => (isJsonObject(issue.input) ? jsonProblem(issue.input, MAX_JSON_DEPTH) : issue.input === undefined ? 'is required' : 'must be a JSON object'),
  })
  .meta({ type: 'object' });

/**
 * JSON the service recorded itself, read back from its event log: event data parsed from JSON
 * text (or, in the memory store, a clone of what was appended). Checked in the same one pass,
 * without a depth bound of its own: a signed record nests caller JSON, itself up to
 * MAX_JSON_DEPTH deep, a few levels below its own members, and a stream whose event could not be
 * read back could no longer be folded. The depth is bounded by what the service accepted. Each
 * event of a fold is checked: z.json()'s generic walk cost 8 us an event of a spend governor's
 * stream (8 ms for every thousand leases at a stream's first read), this pass about 1 us.
 */
export const recordedJsonData = z.custom<JsonValue>((v) => isJsonWithin(v, Number.POSITIVE_INFINITY), { error: 'must be JSON data' });

/** A JSON object the service recorded itself (recordedJsonData). */
export const recordedJsonObject = z.custom<JsonObject>((v) => isJsonObject(v) && isJsonWithin(v, Number.POSITIVE_INFINITY), { error: 'must be a JSON object' });

export { isJsonObject };
