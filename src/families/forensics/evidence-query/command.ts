import type { Command } from '../../../kernel/operation.ts';
import { bindEvidenceReceipt, normaliseEntryIds } from './engine.ts';
import { type EvidenceQueryInput } from './input.ts';
import { FORENSICS_EVENT_TYPES, evidenceSealedSchema, evidenceStream } from '../events.ts';
import type { EventStore } from '../../../events/port.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';

/** The sealed record of one entry, read from its own stream (never a projection that may lag). */
export async function readSealedEntry(store: EventStore, entryId: string): Promise<JsonObject | undefined> {
  const events = await store.readStream(evidenceStream(entryId), { maxCount: 1 });
  const first = events.find((e) => e.type === FORENSICS_EVENT_TYPES.evidenceSealed);
  return first ? (evidenceSealedSchema.parse(first.data).sealed as JsonObject) : undefined;
}

/** Read-only: the receipt is signed in the payment stream and needs no stream of its own. */
export const evidenceQueryCommand: Command<EvidenceQueryInput> = {
  async execute(input, ctx) {
    const ids = normaliseEntryIds(input.entryIds);
    const found = new Map<string, JsonObject>();
    await Promise.all(
      ids.map(async (id) => {
        const sealed = await readSealedEntry(ctx.store, id);
        if (sealed) found.set(id, sealed);
      }),
    );
    return { record: bindEvidenceReceipt(ids, (id) => found.get(id)) };
  },
};
