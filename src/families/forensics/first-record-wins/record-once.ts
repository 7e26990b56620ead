import { eventId } from '../../../events/event-ids.ts';
import { handleCommand } from '../../../kernel/decider.ts';
import type { CallContext } from '../../../kernel/operation.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { parseForensicsEvent, type ForensicsEvent } from '../events.ts';
import { firstRecordWins } from './decider.ts';

export interface Recorded<E> {
  /** The record of the stream: this call's, or the one an earlier request wrote. */
  event: E;
  /** Whether this call wrote it (a resumed call of the same payment counts as this call). */
  writtenHere: boolean;
}

/**
 * Writes `event` as the first record of a content-addressed stream, or finds the record another
 * request wrote first. Which of the two is told by the stored event's id, derived from the payment
 * that wrote it, so a replay of this call tells the same.
 */
export async function recordOnce<E extends ForensicsEvent>(ctx: CallContext, stream: string, event: E): Promise<Recorded<E>> {
  const handled = await handleCommand(ctx.store, stream, firstRecordWins, event, { origin: ctx.paymentId, parse: parseForensicsEvent });
  const stored = handled.state;
  if (!stored || stored.type !== event.type) throw new Error(`stream ${stream} holds no ${event.type} event`);
  const [first] = await ctx.store.readStream(stream, { maxCount: 1 });
  return { event: stored as E, writtenHere: first?.id === eventId(ctx.paymentId, `${stream}/${event.type}`, 0) };
}

/**
 * What the response says, beside the signed record, when an identical record already existed:
 * when it was made, and that the members describing a request describe that first request.
 */
export function alreadyRecorded(recorded: Recorded<ForensicsEvent>, firstAt: unknown, requestMembers: readonly string[]): JsonObject {
  if (recorded.writtenHere) return {};
  return {
    already_recorded: {
      first_recorded_at: typeof firstAt === 'number' ? firstAt : null,
      note: `an identical record was made earlier by another request; it is returned as it was signed then, so ${requestMembers.join(' and ')} describe${requestMembers.length === 1 ? 's' : ''} that first request, not this one`,
    },
  };
}
