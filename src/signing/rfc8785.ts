import canonicalizeImpl from 'canonicalize';

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

const canonicalize = canonicalizeImpl as unknown as (value: unknown) => string | undefined;

/**
 * RFC 8785 (JCS) canonical text. Rejects what JSON cannot carry (NaN, Infinity, undefined at the
 * top level) instead of silently producing text that another canonicaliser would not.
 */
export function canonicalText(value: unknown): string {
  assertFiniteNumbers(value);
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
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
