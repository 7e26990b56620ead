import { describe, expect, it } from 'vitest';
import { jsonExtendingObjectText, jsonWithMemberText } from './spliced-json.ts';

const text = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

describe('JSON text assembled around a member made elsewhere', () => {
  it('gives JSON.stringify of the object, the member in its place, whatever comes before or after it', () => {
    const record = { b: 'ü "q" \\', a: [1, 2.5, null], '🎉': { x: true } };
    for (const object of [{ record }, { first: 1, record, last: 'z' }, { first: undefined, record, skipped: undefined, n: -0 }]) {
      expect(jsonWithMemberText(object, 'record', text(record)).equals(text(object))).toBe(true);
    }
  });

  it('gives JSON.stringify of the object spread with more members, and refuses what would not simply follow it', () => {
    const record = { kind: 'x', 7: 'index first', text: 'ä' };
    const keys = Object.keys(record);
    expect(jsonExtendingObjectText(text(record), keys, { sha256: 'ab', output: '…' })!.equals(text({ ...record, sha256: 'ab', output: '…' }))).toBe(true);
    expect(jsonExtendingObjectText(text(record), keys, {})!.equals(text(record))).toBe(true);
    expect(jsonExtendingObjectText(text({}), [], { a: 1 })!.equals(text({ a: 1 }))).toBe(true);
    // A member of the same name takes the record's place; an array index goes before every other member.
    expect(jsonExtendingObjectText(text(record), keys, { kind: 'y' })).toBeUndefined();
    expect(jsonExtendingObjectText(text(record), keys, { 3: 'z' })).toBeUndefined();
  });
});
