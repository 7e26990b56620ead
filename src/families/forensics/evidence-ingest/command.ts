import type { Command } from '../../../kernel/operation.ts';
import { sealEvidenceEntry } from './engine.ts';
import { type EvidenceIngestInput } from './input.ts';
import { FORENSICS_EVENT_TYPES, evidenceStream } from '../events.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { recordOnce } from '../first-record-wins/record-once.ts';

/** Persists the sealed entry under `evidence-<entryId>`; the same content returns the first seal. */
export const evidenceIngestCommand: Command<EvidenceIngestInput> = {
  async execute(input, ctx) {
    const { entryId, record } = sealEvidenceEntry(input, ctx.now);
    const stored = await recordOnce(ctx, evidenceStream(entryId), {
      type: FORENSICS_EVENT_TYPES.evidenceSealed,
      data: { entryId, sealed: record },
    });
    return { record: stored.data.sealed as JsonObject };
  },
};
