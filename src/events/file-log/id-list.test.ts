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

  it('hands out the 16 bytes of a canonical UUID as stored, and none for any other id', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.uuid(), fc.uuid().map((u) => u.toUpperCase()), fc.string()), { maxLength: 100 }), (ids) => {
        const list = new IdList();
        ids.forEach((id) => list.push(id));
        ids.forEach((id, i) => {
          const bytes = list.uuidBytesAt(i);
          if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) expect(Buffer.from(bytes!).toString('hex')).toBe(id.replaceAll('-', ''));
          else expect(bytes).toBeUndefined();
        });
        expect(list.uuidBytesAt(ids.length)).toBeUndefined();
      }),
    );
  });
});
