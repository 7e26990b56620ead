import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import canonicalizeImpl from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalSha256 } from '../../src/signing/hash.ts';
import { canonicalByteLength, canonicalBytes, canonicalText, type JsonValue } from '../../src/signing/rfc8785.ts';

const reference = canonicalizeImpl as unknown as (value: unknown) => string | undefined;

// The RFC 8785 reference vectors, vendored so that a clone runs on its own; a second test keeps
// the copy identical to the shared conformance set when that set sits beside the repository.
const vendored = new URL('../fixtures/jcs/', import.meta.url);
const shared = new URL('../../../shared/conformance/jcs/', import.meta.url);
const names = readdirSync(new URL('input/', vendored)).filter((n) => n.endsWith('.json'));

describe('RFC 8785 canonicalisation', () => {
  it('has the reference vectors', () => expect(names.length).toBeGreaterThanOrEqual(6));

  for (const name of names) {
    it(`reproduces ${name} byte for byte`, () => {
      const input = JSON.parse(readFileSync(new URL(`input/${name}`, vendored), 'utf8'));
      const expected = readFileSync(new URL(`output/${name}`, vendored));
      expect(Buffer.from(canonicalText(input), 'utf8').equals(expected)).toBe(true);
    });
  }

  it.skipIf(!existsSync(shared))('vendored vectors equal the shared conformance set', () => {
    for (const dir of ['input', 'output']) {
      for (const name of readdirSync(new URL(`${dir}/`, shared))) {
        expect(readFileSync(new URL(`${dir}/${name}`, vendored)).equals(readFileSync(new URL(`${dir}/${name}`, shared)))).toBe(true);
      }
    }
  });

  it('refuses values JSON cannot carry instead of inventing text for them', () => {
    expect(() => canonicalText({ a: Number.NaN })).toThrow();
    expect(() => canonicalText({ a: Number.POSITIVE_INFINITY })).toThrow();
    expect(() => canonicalText(undefined)).toThrow();
  });

  it('orders members by UTF-16 code units and escapes as the RFC says', () => {
    expect(canonicalText({ b: 1, a: [true, null, 'é\u000f'], '\u20ac': 1e21, '\ud83d\ude00': 0.1 })).toBe(
      '{"a":[true,null,"é\\u000f"],"b":1,"€":1e+21,"😀":0.1}',
    );
  });

  it('knows the canonical length of JSON data without building the text', () => {
    for (const name of names) {
      const input = JSON.parse(readFileSync(new URL(`input/${name}`, vendored), 'utf8')) as JsonValue;
      expect(canonicalByteLength(input)).toBe(readFileSync(new URL(`output/${name}`, vendored)).length);
    }
    // Any JSON data, lone surrogates, control characters and extreme numbers included.
    fc.assert(
      fc.property(fc.jsonValue(), (value) => canonicalByteLength(value as JsonValue) === canonicalBytes(value).length),
      { numRuns: 2000 },
    );
  });

  it('hashes the canonical bytes, whatever the strings hold', () => {
    const sha256OfBytes = (value: unknown) => createHash('sha256').update(canonicalBytes(value)).digest('hex');
    // Reference vectors, then any JSON data with lone surrogates and characters of every plane.
    for (const name of names) {
      const input = JSON.parse(readFileSync(new URL(`input/${name}`, vendored), 'utf8')) as JsonValue;
      expect(canonicalSha256(input)).toBe(createHash('sha256').update(readFileSync(new URL(`output/${name}`, vendored))).digest('hex'));
    }
    const strings = fc.string({ unit: fc.oneof(fc.constantFrom('\ud800', '\udfff', '\u0000', 'é', '\ud83d\ude00'), fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c))) });
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.dictionary(strings, strings), fc.array(strings)), (value) => canonicalSha256(value) === sha256OfBytes(value)),
      { numRuns: 2000 },
    );
  });

  it('writes plain JSON data exactly as the reference implementation does', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => canonicalText(value) === reference(value)), { numRuns: 3000 });
    // Members whose names sort differently by code unit than by code point, integer-like names, and -0.
    const awkward = { '\ud83d\ude00': 1, '\uff61': 2, b: [-0, 1e-7, 1e21], '10': 'x', '9': 'y', '': null, 'é': 'e\u2028\u0000"\\' };
    expect(canonicalText(awkward)).toBe(reference(awkward));
    // Objects of a few members and of many (sorted two ways), with names that differ only past
    // their first code unit, lone surrogates and characters of every plane.
    const names = fc.string({ unit: fc.oneof(fc.constantFrom('a', 'b', '\ud800', '\udfff', '\uff61', '\ud83d\ude00', '0', '10'), fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c))), maxLength: 4 });
    fc.assert(fc.property(fc.dictionary(names, fc.integer(), { maxKeys: 40 }), (value) => canonicalText(value) === reference(value)), { numRuns: 2000 });
  });

  it('leaves whatever is not plain JSON data to the reference implementation, text and refusal alike', () => {
    // The behaviour before the one-pass writer: non-finite numbers refused anywhere, then the package.
    const before = (value: unknown): string => {
      const walk = (v: unknown): void => {
        if (typeof v === 'number' && !Number.isFinite(v)) throw new TypeError('not finite');
        if (v !== null && typeof v === 'object') for (const key in v) walk((v as Record<string, unknown>)[key]);
      };
      walk(value);
      const text = reference(value);
      if (text === undefined) throw new TypeError('no JSON representation');
      return text;
    };
    const outcome = (f: () => string): string => {
      try {
        return `text ${f()}`;
      } catch {
        return 'refused';
      }
    };
    const anything = fc.anything({ withNullPrototype: true, withDate: true, withBoxedValues: true, withSparseArray: true, withObjectString: true, withBigInt: true, withMap: true, withSet: true, withTypedArray: true });
    fc.assert(fc.property(anything, (value) => outcome(() => canonicalText(value)) === outcome(() => before(value))), { numRuns: 3000 });
    const withToJson = { when: new Date(0), nested: { toJSON: () => ({ z: 1, a: 2 }) }, gone: undefined, list: [undefined, 1] };
    expect(canonicalText(withToJson)).toBe(reference(withToJson));
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    expect(() => canonicalText(cycle)).toThrow(RangeError);
    // An array without its prototype is no plain object: the reference refuses it, and so does this.
    const bareArray = { list: Object.setPrototypeOf([1, 2], null) as unknown };
    expect(outcome(() => canonicalText(bareArray))).toBe(outcome(() => before(bareArray)));
    expect(outcome(() => canonicalText(bareArray))).toBe('refused');
  });
});
