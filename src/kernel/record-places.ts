import { z } from 'zod';
import type { RecordPlace } from './decider.ts';
import { KeyedHistory } from './keyed-history.ts';

/**
 * The places of a state's records (RecordPlace), by the payment that made each, as a snapshot
 * holds them (state-snapshots.ts): [paymentId, revision] pairs, in order.
 */
export const encodedRecordPlaces = z.array(z.tuple([z.string().min(1), z.number().int().nonnegative()]));

export const emptyRecordPlaces = (): KeyedHistory<RecordPlace> => KeyedHistory.empty((place) => place.paymentId);

export function encodeRecordPlaces(places: KeyedHistory<RecordPlace>): [string, number][] {
  return places.toArray().map((place) => [place.paymentId, place.revision]);
}

export function decodeRecordPlaces(encoded: z.infer<typeof encodedRecordPlaces>): KeyedHistory<RecordPlace> {
  return KeyedHistory.of(
    encoded.map(([paymentId, revision]) => ({ paymentId, revision })),
    (place) => place.paymentId,
  );
}
