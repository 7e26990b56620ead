import type { Command } from '../../../kernel/operation.ts';
import { sealEvidenceEntry } from './engine.ts';
import { type EvidenceIngestInput } from './input.ts';
import { FORENSICS_EVENT_TYPES, evidenceStream } from '../events.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { alreadyRecorded, recordOnce } from '../first-record-wins/record-once.ts';
import { storedRecordResult } from '../../../kernel/signing-stamp.ts';

/**
 * Persists the sealed entry under `evidence-<entryId>`; the same content returns the first seal,
 * and then says so beside it (action_hash_source describes the request that sealed it first).
 */
export const evidenceIngestCommand: Command<EvidenceIngestInput> = {
  async execute(input, ctx) {
    const { entryId, record } = sealEvidenceEntry(input, ctx.now);
    const recorded = await recordOnce(ctx, evidenceStream(entryId), {
      type: FORENSICS_EVENT_TYPES.evidenceSealed,
      data: { entryId, sealed: record },
    });
    const sealed = recorded.event.data.sealed as JsonObject;
    return storedRecordResult(sealed, alreadyRecorded(recorded, sealed.sealedAt, ['action_hash_source']));
  },
};
