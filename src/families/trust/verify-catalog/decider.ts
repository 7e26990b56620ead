import type { Decider, RecordPlace } from '../../../kernel/decider.ts';
import { emptyRecordPlaces, recordPlacePieces, withPlacesOf, type RecordPlaces } from '../../../kernel/record-places.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { CATALOG_ENTRY_REGISTERED, type CatalogEntryRegistered } from './events.ts';

export interface Register {
  paymentId: string;
  evidenceCore: JsonObject;
}

/**
 * State of one entry: its registrations in order, each with the paid call that made it and the
 * revision of its event in the entry's stream, where its record is (read back by the command
 * that answers with it). The records themselves are not kept: an entry registered again and
 * again held every one of them in memory.
 */
export type EntryState = RecordPlaces;


/** Where the registration of the paid call `paymentId` is, if it made one. */
export const registeredBy = (state: EntryState, paymentId: string): RecordPlace | undefined => state.latestWithKey(paymentId);

/**
 * One registration per paid call: a call that finds its own registration already written (a
 * resumed saga) decides nothing, and the command returns the stored evidenceCore instead of a
 * freshly stamped one, so the signed record and the log always agree.
 */
export const catalogEntryDecider: Decider<Register, CatalogEntryRegistered, EntryState> = {
  initialState: emptyRecordPlaces(),
  decide(command, state) {
    if (registeredBy(state, command.paymentId)) return [];
    const entryId = command.evidenceCore.entryId as string;
    return [
      {
        type: CATALOG_ENTRY_REGISTERED,
        data: { entryId, paymentId: command.paymentId, evidenceCore: command.evidenceCore, sha256: canonicalSha256(command.evidenceCore) },
      },
    ];
  },
  // Every event of an entry's stream is a registration: its revision is its place in the list.
  evolve: (state, event) => state.append({ paymentId: event.data.paymentId, revision: state.length }),
  // A place is a payment's id (about 120 characters) and a revision.
  keptSize: (state) => state.keptChars(160),
  snapshot: {
    kind: 'catalog-entry',
    version: 1,
    encode: recordPlacePieces,
    decoder() {
      let places = emptyRecordPlaces();
      return { add: (piece) => void (places = withPlacesOf(places, piece)), finish: () => places };
    },
  },
};

