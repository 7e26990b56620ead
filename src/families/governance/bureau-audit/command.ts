import { eventId } from '../../../events/event-ids.ts';
import { WrongExpectedRevisionError } from '../../../events/port.ts';
import type { CallContext, Command } from '../../../kernel/operation.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { seal } from '../../../signing/seal.ts';
import { auditStreamName, bureauAuditRecordedSchema, GOVERNANCE_EVENT_TYPES } from '../events.ts';
import { auditIdOf, auditTranscript, type AuditTranscript } from './engine.ts';
import { storedRecordResult } from '../../../kernel/signing-stamp.ts';

async function storedAudit(ctx: CallContext, stream: string): Promise<JsonObject | undefined> {
  const [first] = await ctx.store.readStream(stream, { maxCount: 1 });
  return first ? bureauAuditRecordedSchema.parse(first.data).record : undefined;
}

/**
 * Audits the transcript and records the sealed audit in its own stream, which is what the
 * corpus (and its Merkle anchor) is folded from. The id comes from the transcript, so the same
 * transcript is one audit: a later identical request (or a resumed call, or a concurrent
 * duplicate) gets the stored record, whose auditedAt says when it was first audited, sealed with
 * the key of that time (storedRecordResult). The seal here is the one the caller receives:
 * Ed25519 is deterministic.
 */
export const bureauAuditCommand: Command<AuditTranscript> = {
  async execute(input, ctx) {
    const auditId = auditIdOf(input);
    const stream = auditStreamName(auditId);
    const existing = await storedAudit(ctx, stream);
    if (existing) return storedRecordResult(existing);
    const record = auditTranscript(input, { auditId, now: ctx.now });
    const s = seal(ctx.keyring, 'governance', record);
    const type = GOVERNANCE_EVENT_TYPES.bureauAuditRecorded;
    try {
      await ctx.store.appendToStream(
        stream,
        [{ id: eventId(ctx.paymentId, `${stream}/${type}`, 0), type, data: { auditId, paymentId: ctx.paymentId, record, ...s } }],
        { expectedRevision: 'no_stream' },
      );
    } catch (err) {
      // An identical transcript audited at the same moment by another call: that one is the audit.
      if (!(err instanceof WrongExpectedRevisionError)) throw err;
      return storedRecordResult((await storedAudit(ctx, stream))!);
    }
    return { record };
  },
};
