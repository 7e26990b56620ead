/**
 * JSON text of event data, exactly as JSON.stringify writes it, but faster for the values events
 * are made of. Every append serialises its events, and on Node 20 JSON.stringify scans strings
 * one character at a time and costs about 0.15 µs per call on top: for a 1 KiB event that was
 * the largest single item of an append's CPU time. Here a string without anything to escape is
 * recognised by one regular expression test (native and much faster) and quoted as it is.
 *
 * Only plain values take the fast path: strings, finite numbers, booleans, null, and arrays and
 * objects with the standard prototypes whose members are such values. Anything else (undefined,
 * functions, non-finite numbers, toJSON, class instances, a cycle) makes the whole value go
 * through JSON.stringify, so the output, and every error, is always JSON.stringify's own.
 */

/**
 * The code units JSON.stringify escapes (ES2019 well-formed stringify): controls, quote,
 * backslash, and surrogates (lone ones are escaped; strings with pairs take the slow path too,
 * which writes them unchanged, so the result is the same either way).
 */
const NOTHING_TO_ESCAPE = /^[^\u0000-\u001f"\\\ud800-\udfff]*$/;

/** Thrown inside the fast path when a value is not plain: the caller starts over with JSON.stringify. */
const NOT_PLAIN: unique symbol = Symbol('not plain JSON');

export function jsonString(s: string): string {
  return NOTHING_TO_ESCAPE.test(s) ? `"${s}"` : JSON.stringify(s);
}

/** JSON.stringify(value), or undefined where JSON.stringify gives undefined. Throws what it throws. */
export function jsonText(value: unknown): string | undefined {
  try {
    return plainJson(value);
  } catch (err) {
    // A stack overflow on very deep data also ends here: JSON.stringify then decides.
    if (err !== NOT_PLAIN && !(err instanceof RangeError)) throw err;
    return JSON.stringify(value) as string | undefined;
  }
}

function plainJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return jsonString(value);
    case 'number':
      if (!Number.isFinite(value)) throw NOT_PLAIN;
      // Number::toString, as JSON.stringify writes numbers (and -0 as "0").
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      const proto: unknown = Object.getPrototypeOf(value);
      if (Array.isArray(value) && proto === Array.prototype) return plainArray(value as unknown[]);
      if ((proto === Object.prototype || proto === null) && !('toJSON' in value)) return plainObject(value as Record<string, unknown>);
      throw NOT_PLAIN;
    }
    default:
      throw NOT_PLAIN;
  }
}

function plainArray(values: unknown[]): string {
  if (values.length === 0) return '[]';
  let out = '[' + plainJson(values[0]);
  for (let i = 1; i < values.length; i++) out += ',' + plainJson(values[i]);
  return out + ']';
}

function plainObject(object: Record<string, unknown>): string {
  // Object.keys lists exactly the properties JSON.stringify writes, in the same order.
  const keys = Object.keys(object);
  if (keys.length === 0) return '{}';
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    out += (i === 0 ? '' : ',') + jsonString(key) + ':' + plainJson(object[key]);
  }
  return out + '}';
}
