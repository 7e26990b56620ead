import type { Command } from '../../kernel/operation.ts';
import { assessRegistration, catalogEntryId, type CatalogRegistration } from '../../engines/trust/verify-catalog.ts';
import {
  CATALOG_ENTRY_REGISTERED,
  catalogEntryStream,
  parseCatalogEntryEvent,
  type CatalogEntryRegistered,
} from '../../events/domain/trust.ts';
import type { JsonObject } from '../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../signing/hash.ts';
import { handleCommand, type Decider } from '../../kernel/decider.ts';

interface Register {
  paymentId: string;
  evidenceCore: JsonObject;
}

/** State of one entry: its registrations, by the paid call that made each. */
type EntryState = ReadonlyMap<string, JsonObject>;

/**
 * One registration per paid call: a call that finds its own registration already written (a
 * resumed saga) decides nothing, and the command returns the stored evidenceCore instead of a
 * freshly stamped one, so the signed record and the log always agree.
 */
export const catalogEntryDecider: Decider<Register, CatalogEntryRegistered, EntryState> = {
  initialState: new Map(),
  decide(command, state) {
    if (state.has(command.paymentId)) return [];
    const entryId = command.evidenceCore.entryId as string;
    return [
      {
        type: CATALOG_ENTRY_REGISTERED,
        data: { entryId, paymentId: command.paymentId, evidenceCore: command.evidenceCore, sha256: canonicalSha256(command.evidenceCore) },
      },
    ];
  },
  evolve(state, event) {
    return new Map(state).set(event.data.paymentId, event.data.evidenceCore);
  },
};

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).host;
  } catch {
    return '';
  }
}

export const verifyCatalogRegister: Command<CatalogRegistration> = {
  async execute(input, ctx) {
    const evidenceCore = assessRegistration(input, hostOf(ctx.baseUrl), ctx.now);
    const stream = catalogEntryStream(catalogEntryId(input));
    const handled = await handleCommand(ctx.store, stream, catalogEntryDecider, { paymentId: ctx.paymentId, evidenceCore }, {
      origin: ctx.paymentId,
      parse: parseCatalogEntryEvent,
    });
    return { record: handled.state.get(ctx.paymentId) ?? evidenceCore };
  },
};
