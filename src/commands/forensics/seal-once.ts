import type { CallContext } from '../../kernel/operation.ts';
import { parseForensicsEvent, type ForensicsEvent } from '../../events/domain/forensics.ts';
import { handleCommand, type Decider } from '../../kernel/decider.ts';

/**
 * The aggregate of a content-addressed record (an evidence entry, a C2PA attestation): its id is
 * derived from its content, so the first record written under that id is the record. A later
 * call with the same content, a concurrent duplicate, or the same payment resumed after a crash
 * all find it and get it back unchanged (with its original timestamp), and write nothing.
 */
const firstRecordWins: Decider<ForensicsEvent, ForensicsEvent, ForensicsEvent | undefined> = {
  initialState: undefined,
  decide: (event, state) => (state ? [] : [event]),
  evolve: (state, event) => state ?? event,
};

export async function recordOnce<E extends ForensicsEvent>(ctx: CallContext, stream: string, event: E): Promise<E> {
  const handled = await handleCommand(ctx.store, stream, firstRecordWins, event, { origin: ctx.paymentId, parse: parseForensicsEvent });
  const stored = handled.state;
  if (!stored || stored.type !== event.type) throw new Error(`stream ${stream} holds no ${event.type} event`);
  return stored as E;
}
