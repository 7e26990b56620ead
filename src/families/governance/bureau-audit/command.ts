import type { Command } from '../../../kernel/operation.ts';
import { auditTranscript, type AuditTranscript } from './engine.ts';
import { auditStreamName, bureauAuditRecordedSchema, GOVERNANCE_EVENT_TYPES } from '../events.ts';
import { eventId } from '../../../events/event-ids.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import { seal } from '../../../signing/seal.ts';

/** One audit per payment: the id is derived from the payment, so a resumed call finds it. */
export const auditIdFor = (paymentId: string): string => sha256Hex(`bureau-audit\u0000${paymentId}`).slice(0, 32);

/**
 * Audits the transcript and records the sealed audit in its own stream, which is what the
 * corpus (and its Merkle anchor) is folded from. The seal here is the one the caller receives:
 * Ed25519 is deterministic, so sealing the same record again gives the same bytes.
 */
export const bureauAuditCommand: Command<AuditTranscript> = {
  async execute(input, ctx) {
    const auditId = auditIdFor(ctx.paymentId);
    const stream = auditStreamName(auditId);
    const existing = await ctx.store.readStream(stream, { maxCount: 1 });
    if (existing[0]) return { record: bureauAuditRecordedSchema.parse(existing[0].data).record };
    const record = auditTranscript(input, { auditId, now: ctx.now });
    const s = seal(ctx.keyring, 'governance', record);
    const type = GOVERNANCE_EVENT_TYPES.bureauAuditRecorded;
    await ctx.store.appendToStream(
      stream,
      [{ id: eventId(ctx.paymentId, `${stream}/${type}`, 0), type, data: { auditId, paymentId: ctx.paymentId, record, ...s } }],
      { expectedRevision: 'no_stream' },
    );
    return { record };
  },
};
