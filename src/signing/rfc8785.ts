import canonicalizeImpl from 'canonicalize';

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A JSON object: not null, not an array. */
export const isJsonObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

// The package is CommonJS (module.exports = serialize) while its typings declare an ES default
// export, so under NodeNext the default import is typed as a module holding `default`, and is the
// function itself at run time: its own signature, said once here.
const canonicalize = canonicalizeImpl as unknown as (value: unknown) => string | undefined;

/**
 * The code units a JSON string escapes (RFC 8785 section 3.2.2.2, which is ECMAScript's
 * JSON.stringify): controls, quote, backslash, and surrogates (lone ones are escaped; strings
 * with pairs take the slow path too, which writes them unchanged, so the result is the same).
 */
const NOTHING_TO_ESCAPE = /^[^\u0000-\u001f"\\\ud800-\udfff]*$/;

/** Whether `s` is written between quotes as it is: one native regular expression test. */
export function hasNothingToEscape(s: string): boolean {
  return NOTHING_TO_ESCAPE.test(s);
}

/** `s` as a JSON string, exactly as JSON.stringify writes it, without its per-character scan for the usual string. */
export function quoteJsonString(s: string): string {
  return NOTHING_TO_ESCAPE.test(s) ? `"${s}"` : JSON.stringify(s);
}

/** Thrown inside the plain writer when a value is not plain JSON data: the reference implementation then decides. */
const NOT_PLAIN: unique symbol = Symbol('not plain JSON data');

/**
 * RFC 8785 (JCS) canonical text. Rejects what JSON cannot carry (NaN, Infinity, undefined at the
 * top level) instead of silently producing text that another canonicaliser would not.
 *
 * Plain JSON data (what every record is) is written here in one pass; anything else (undefined
 * members, toJSON, class instances, a cycle, very deep nesting) goes to the `canonicalize`
 * package, the RFC's reference implementation, so the text and every error stay its own.
 * test/signing/jcs.test.ts holds the two to the same output on random values. The package alone
 * cost about 3.5 us for a small record (a sorted copy of the keys and a reduce per object), and a
 * paid call canonicalises twice (the request hash and the seal).
 */
export function canonicalText(value: unknown): string {
  try {
    return plainCanonicalText(value);
  } catch (err) {
    if (err !== NOT_PLAIN && !(err instanceof RangeError)) throw err;
  }
  assertFiniteNumbers(value);
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}

/** The canonical text of plain JSON data; throws NOT_PLAIN at anything else. */
function plainCanonicalText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return quoteJsonString(value);
    case 'number':
      if (!Number.isFinite(value)) throw NOT_PLAIN;
      // ECMAScript's Number::toString, as RFC 8785 section 3.2.2.3 requires (and -0 as "0").
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (!isPlainContainer(value)) throw NOT_PLAIN;
      if (Array.isArray(value)) {
        let text = '[';
        for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + plainCanonicalText(value[i]);
        return `${text}]`;
      }
      const object = value as Record<string, unknown>;
      const keys = inCodeUnitOrder(Object.keys(object));
      let text = '{';
      for (let i = 0; i < keys.length; i++) text += (i === 0 ? '' : ',') + quoteJsonString(keys[i]!) + ':' + plainCanonicalText(object[keys[i]!]);
      return `${text}}`;
    }
    default:
      throw NOT_PLAIN;
  }
}

/**
 * Whether a non-null object is a container JSON writes member by member as it stands: an array
 * with the standard prototype, or an object with the standard prototype (or none) and no toJSON.
 * Anything else (a Date, a Map, a class instance, an array without its prototype) is left to the
 * reference writers, whose output and errors are then the ones given.
 */
export function isPlainContainer(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return Array.isArray(value) ? proto === Array.prototype : (proto === Object.prototype || proto === null) && !('toJSON' in value);
}

/** Up to this many keys are sorted in place by insertion: most objects of a record have a few. */
const SORTED_IN_PLACE = 16;

/**
 * `keys` in the order of section 3.2.3: by UTF-16 code units, as `<` on strings and the default
 * sort compare them. The default sort first copies the array into a work array of its own, which
 * for the dozens of small objects a paid call canonicalises was a steady share of its garbage;
 * a short list is sorted where it is.
 */
function inCodeUnitOrder(keys: string[]): string[] {
  if (keys.length > SORTED_IN_PLACE) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}

export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalText(value), 'utf8');
}

/**
 * The length in bytes of the canonical form of JSON data, without building it: RFC 8785 writes
 * strings and numbers exactly as JSON.stringify does and only orders the members, so the two
 * texts have the same length, and JSON.stringify is native. For JSON data only (what a schema
 * has already checked); test/signing/jcs.test.ts holds the two to the same length.
 */
export function canonicalByteLength(value: JsonValue): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

function assertFiniteNumbers(value: unknown): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('JSON cannot carry NaN or Infinity');
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) assertFiniteNumbers(value[i]);
  } else if (value !== null && typeof value === 'object') {
    for (const key in value) assertFiniteNumbers((value as Record<string, unknown>)[key]);
  }
}
