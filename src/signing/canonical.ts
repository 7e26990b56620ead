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

function assertFiniteNumbers(value: unknown): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('JSON cannot carry NaN or Infinity');
  } else if (Array.isArray(value)) {
    for (const v of value) assertFiniteNumbers(v);
  } else if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) assertFiniteNumbers(v);
  }
}
