import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../signing/rfc8785.ts';
import { containerStartBefore, topLevelScalarMembers } from './json-object-members.ts';

const text = (value: unknown, space?: number) => Buffer.from(JSON.stringify(value, null, space), 'utf8');
const tricky = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '\\"', '{"a":1}', '}', '"}', ',"k":'));
const scalar = fc.oneof(tricky, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constant(null));
const member = fc.oneof(scalar, fc.jsonValue());
const object = fc.dictionary(fc.oneof(fc.string(), tricky), member);

describe('reading top-level members of a JSON object text', () => {
  it('gives what JSON.parse gives, for any object, members and spacing, whenever it answers', () => {
    fc.assert(
      fc.property(object, fc.array(fc.oneof(fc.string(), tricky)), fc.constantFrom(undefined, 2), (value, extraNames, space) => {
        const names = [...new Set([...Object.keys(value).filter((_, i) => i % 2 === 0), ...extraNames])];
        const read = topLevelScalarMembers(text(value, space), names);
        if (read === undefined) return;
        const parsed = JSON.parse(JSON.stringify(value)) as JsonObject;
        for (const name of names) expect(read.get(name)).toEqual(parsed[name]);
        expect([...read.keys()].every((name) => Object.hasOwn(parsed, name))).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('always answers for an object of scalars only, whatever members are asked', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.oneof(fc.string(), tricky), scalar), fc.nat(), (value, pick) => {
        const names = Object.keys(value).filter((_, i) => (pick >> i % 30) & 1);
        const parsed = JSON.parse(JSON.stringify(value)) as JsonObject;
        expect(Object.fromEntries(topLevelScalarMembers(text(value), names) ?? [['not answered', true]])).toEqual(Object.fromEntries(names.map((name) => [name, parsed[name]])));
      }),
      { numRuns: 1_000 },
    );
  });

  it('reads the small members on both sides of one large member, as in a ResultSigned event', () => {
    const record = { items: Array.from({ length: 1_000 }, (_, i) => ({ note: `"sha256":"${i}"}`, i })), sha256: 'inside the record' };
    const data = { operation: 'security.dependency-risk', keyFamily: 'compliance', record, sha256: 'a'.repeat(64), ed25519Sig: 'b'.repeat(128), keyId: '0123456789abcdef', signedAt: 1_800_000_000 };
    const read = topLevelScalarMembers(text(data), ['keyFamily', 'keyId', 'sha256', 'signedAt']);
    expect(Object.fromEntries(read ?? [])).toEqual({ keyFamily: 'compliance', keyId: '0123456789abcdef', sha256: 'a'.repeat(64), signedAt: 1_800_000_000 });
  });

  it('gives up, for a whole parse, when a wanted member lies between two objects or is missing', () => {
    expect(topLevelScalarMembers(text({ a: {}, b: 1, c: [] }), ['b'])).toBeUndefined();
    expect(topLevelScalarMembers(text({ a: 1 }), ['b'])).toBeUndefined();
    expect(topLevelScalarMembers(Buffer.from('[1,2]'), ['a'])).toBeUndefined();
    expect(topLevelScalarMembers(Buffer.from('{"a":tru}'), ['a'])).toBeUndefined();
  });
});

describe('finding where an object starts from its end', () => {
  it('steps over strings holding brackets and quotes', () => {
    fc.assert(
      fc.property(fc.jsonValue(), object, (before, value) => {
        const prefix = `[${JSON.stringify(before)},`;
        const bytes = Buffer.from(`${prefix}${JSON.stringify(value)}]`, 'utf8');
        expect(containerStartBefore(bytes, bytes.length - 2, 0)).toBe(Buffer.byteLength(prefix, 'utf8'));
      }),
      { numRuns: 1_000 },
    );
  });
});
