import type { CallContext, Command } from '../../../kernel/operation.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { assessRegistration, catalogEntryId, type CatalogRegistration } from './engine.ts';
import { catalogEntryStream, parseCatalogEntryEvent } from './events.ts';
import { eventAt, handleCommand } from '../../../kernel/decider.ts';
import { catalogEntryDecider, registeredBy } from './decider.ts';

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return '';
  }
}

export const verifyCatalogRegisterCommand: Command<CatalogRegistration> = {
  async execute(input, ctx) {
    const evidenceCore = assessRegistration(input, hostOf(ctx.baseUrl), ctx.now);
    const stream = catalogEntryStream(catalogEntryId(input));
    const handled = await handleCommand(ctx.store, stream, catalogEntryDecider, { paymentId: ctx.paymentId, evidenceCore }, {
      origin: ctx.paymentId,
      parse: parseCatalogEntryEvent,
    });
    // A new registration answers with its record; a resumed call, with the one it wrote then.
    const written = handled.events[0]?.data.evidenceCore;
    return { record: written ?? (await recordedEvidence(ctx, stream, registeredBy(handled.state, ctx.paymentId)?.revision)) };
  },
};

/** The evidence recorded at `revision` of the entry's stream (decider.ts keeps where, not what). */
async function recordedEvidence(ctx: CallContext, stream: string, revision: number | undefined): Promise<JsonObject> {
  if (revision === undefined) throw new Error(`${stream}: the paid call ${ctx.paymentId} left no registration`);
  return (await eventAt(ctx.store, stream, revision, parseCatalogEntryEvent)).data.evidenceCore;
}
