import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventId } from '../event-ids.ts';
import { IdList } from './id-list.ts';

describe('IdList', () => {
  it('gives back every id exactly, by position: derived UUIDs, uppercase UUIDs and any other text', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.uuid(), fc.uuid().map((u) => u.toUpperCase()), fc.string(), fc.constant('')), { maxLength: 200 }), (ids) => {
        const list = new IdList();
        ids.forEach((id) => list.push(id));
        expect(list.length).toBe(ids.length);
        expect(ids.map((_, i) => list.at(i))).toEqual(ids);
        expect(list.at(ids.length)).toBeUndefined();
        expect(list.at(-1)).toBeUndefined();
      }),
    );
  });

  it('keeps positions right as it grows past its first buffer', () => {
    const list = new IdList();
    const ids = Array.from({ length: 5_000 }, (_, i) => (i % 7 === 0 ? `client-id-${i}` : eventId('payment-x', 'ResultSigned', i)));
    ids.forEach((id) => list.push(id));
    expect(ids.every((id, i) => list.at(i) === id)).toBe(true);
  });
});
