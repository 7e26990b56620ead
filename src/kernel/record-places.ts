import { z } from 'zod';
import type { RecordPlace } from './decider.ts';
import { KeyedHistory } from './keyed-history.ts';
import { inChunks } from './state-snapshots.ts';

/**
 * The places of a state's records (RecordPlace), by the payment that made each, as a snapshot
 * holds them (state-snapshots.ts): pieces ["places", [[paymentId, revision], ...]], in order.
 */
const placesPiece = z.tuple([z.literal('places'), z.array(z.tuple([z.string().min(1), z.number().int().nonnegative()]))]);

export const emptyRecordPlaces = (): KeyedHistory<RecordPlace> => KeyedHistory.empty((place) => place.paymentId);

export function* recordPlacePieces(places: KeyedHistory<RecordPlace>): Generator<['places', [string, number][]]> {
  for (const chunk of inChunks(places.toArray())) yield ['places', chunk.map((place) => [place.paymentId, place.revision])];
}

/** Reads places pieces back, in order, onto the places given. */
export function withPlacesOf(places: KeyedHistory<RecordPlace>, piece: unknown): KeyedHistory<RecordPlace> {
  for (const [paymentId, revision] of placesPiece.parse(piece)[1]) places = places.append({ paymentId, revision });
  return places;
}
