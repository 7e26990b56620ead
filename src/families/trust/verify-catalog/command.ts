import type { Command } from '../../../kernel/operation.ts';
import { assessRegistration, catalogEntryId, type CatalogRegistration } from './engine.ts';
import { catalogEntryStream, parseCatalogEntryEvent } from './events.ts';
import { handleCommand } from '../../../kernel/decider.ts';
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
    return { record: registeredBy(handled.state, ctx.paymentId) ?? evidenceCore };
  },
};
