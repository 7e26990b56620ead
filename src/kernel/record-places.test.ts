import { describe, expect, it } from 'vitest';
import { emptyRecordPlaces, recordPlacePieces, withPlacesOf, type RecordPlaces } from './record-places.ts';

/** n places, record i by payment `payment-i` at revision 3i + 1 (revisions need not be the numbers). */
const placesOf = (n: number, from: RecordPlaces = emptyRecordPlaces()): RecordPlaces => {
  let places = from;
  for (let i = from.length; i < n; i++) places = places.append({ paymentId: `payment-${i}`, revision: 3 * i + 1 });
  return places;
};
const readBack = (places: RecordPlaces): RecordPlaces => [...recordPlacePieces(places)].reduce<RecordPlaces>((into, piece) => withPlacesOf(into, JSON.parse(JSON.stringify(piece))), emptyRecordPlaces());
/** How many places are held whole: what one more character a place held whole adds to their weight. */
const held = (places: RecordPlaces) => places.keptChars(25) - places.keptChars(24);

describe('record places', () => {
  it('find every record by its payment and by its number, however many are archived', () => {
    const places = placesOf(5_000);
    expect(places.length).toBe(5_000);
    expect(held(places)).toBeLessThan(2_048);
    for (const i of [0, 1, 1_023, 1_024, 2_047, 2_048, 3_071, 3_072, 4_999]) {
      expect(places.latestWithKey(`payment-${i}`)).toEqual({ paymentId: `payment-${i}`, index: i, revision: 3 * i + 1 });
      expect(places.revisionOf(i)).toBe(3 * i + 1);
    }
    for (let i = 0; i < 5_000; i++) expect(places.latestWithKey(`payment-${i}`)?.index).toBe(i);
    expect(places.latestWithKey('payment-5000')).toBeUndefined();
    expect([places.revisionOf(5_000), places.revisionOf(-1), places.revisionOf(1.5)]).toEqual([undefined, undefined, undefined]);
    expect(places.last()).toEqual({ paymentId: 'payment-4999', index: 4_999, revision: 14_998 });
  });

  it('are immutable: appending leaves the places it was called on as they were', () => {
    const before = placesOf(2_047);
    const after = placesOf(2_048, before);
    expect(held(before)).toBe(2_047);
    expect(held(after)).toBe(1_024);
    expect(before.latestWithKey('payment-2047')).toBeUndefined();
    expect(after.latestWithKey('payment-0')).toEqual(before.latestWithKey('payment-0'));
  });

  it('read back from a snapshot as they were, archived or not, and from a snapshot written before the archive', () => {
    for (const n of [0, 5, 2_047, 2_048, 5_000]) {
      const places = placesOf(n);
      const again = readBack(places);
      expect([...recordPlacePieces(again)]).toEqual([...recordPlacePieces(places)]);
      expect(again.latestWithKey(`payment-${Math.max(0, n - 1)}`)).toEqual(places.latestWithKey(`payment-${Math.max(0, n - 1)}`));
    }
    // Before the archive every place was a ["places", ...] piece: such a snapshot reads back archived alike.
    const all = Array.from({ length: 5_000 }, (_, i) => [`payment-${i}`, 3 * i + 1]);
    const old = [0, 1_000, 2_000, 3_000, 4_000].map((from) => ['places', all.slice(from, from + 1_000)]);
    const fromOld = old.reduce<RecordPlaces>((into, piece) => withPlacesOf(into, piece), emptyRecordPlaces());
    expect([...recordPlacePieces(fromOld)]).toEqual([...recordPlacePieces(placesOf(5_000))]);
  });

  it('refuse a snapshot whose archived pieces come out of order or do not fit', () => {
    const pieces = [...recordPlacePieces(placesOf(3_000))];
    const kinds = pieces.map((piece) => piece[0]);
    expect(kinds.slice(0, 2)).toEqual(['archivedRevisions', 'archivedPayments']);
    const [revisions, payments, ...whole] = pieces;
    expect(() => [...whole, revisions].reduce<RecordPlaces>((into, piece) => withPlacesOf(into, piece), emptyRecordPlaces())).toThrow(/after the places/);
    expect(() => withPlacesOf(emptyRecordPlaces(), payments)).toThrow(/of 0 archived places/);
    const beyond = Buffer.from((payments as [string, string])[1], 'base64');
    beyond.writeUInt32BE(5_000, 16);
    expect(() => withPlacesOf(withPlacesOf(emptyRecordPlaces(), revisions), ['archivedPayments', beyond.toString('base64')])).toThrow(/place 5000 of 1024/);
    expect(() => withPlacesOf(emptyRecordPlaces(), ['archivedRevisions', Buffer.alloc(40).toString('base64')])).toThrow(/not a batch/);
  });
});
