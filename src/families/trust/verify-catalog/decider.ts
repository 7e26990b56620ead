import type { Decider } from '../../../kernel/decider.ts';
import { KeyedHistory } from '../../../kernel/keyed-history.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { CATALOG_ENTRY_REGISTERED, type CatalogEntryRegistered } from './events.ts';

export interface Register {
  paymentId: string;
  evidenceCore: JsonObject;
}

/** State of one entry: its registrations in order, each with the paid call that made it. */
export type EntryState = KeyedHistory<{ paymentId: string; evidenceCore: JsonObject }>;

/** The evidence the paid call `paymentId` registered, if it did. */
export const registeredBy = (state: EntryState, paymentId: string): JsonObject | undefined => state.latestWithKey(paymentId)?.evidenceCore;

/**
 * One registration per paid call: a call that finds its own registration already written (a
 * resumed saga) decides nothing, and the command returns the stored evidenceCore instead of a
 * freshly stamped one, so the signed record and the log always agree.
 */
export const catalogEntryDecider: Decider<Register, CatalogEntryRegistered, EntryState> = {
  initialState: KeyedHistory.empty((r) => r.paymentId),
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
  evolve(state, event) {
    return state.append({ paymentId: event.data.paymentId, evidenceCore: event.data.evidenceCore });
  },
};

