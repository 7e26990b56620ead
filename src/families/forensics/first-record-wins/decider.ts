import type { Decider } from '../../../kernel/decider.ts';
import type { ForensicsEvent } from '../events.ts';

/**
 * The aggregate of a content-addressed record (an evidence entry, a C2PA attestation): its id is
 * derived from its content, so the first record written under that id is the record. A later
 * call with the same content, a concurrent duplicate, or the same payment resumed after a crash
 * all find it and get it back unchanged (with its original timestamp), and write nothing.
 */
export const firstRecordWins: Decider<ForensicsEvent, ForensicsEvent, ForensicsEvent | undefined> = {
  initialState: undefined,
  decide: (event, state) => (state ? [] : [event]),
  evolve: (state, event) => state ?? event,
};
