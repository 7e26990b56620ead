import { z } from 'zod';
import { recordedJsonObject } from '../../../kernel/json.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';

/** Domain events of the Trust and Reputation family. */

export const CATALOG_ENTRY_REGISTERED = 'CatalogEntryRegistered';

/** A catalog entry's stream: every registration of the same entry, in order. */
export const catalogEntryStream = (entryId: string): string => `verify-catalog-${entryId}`;

export const catalogEntryRegisteredData = z.object({
  entryId: z.string().regex(/^[0-9a-f]{32}$/),
  /** The paid call that registered it: a resumed call finds its own registration by this. */
  paymentId: z.string().min(1),
  evidenceCore: recordedJsonObject,
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export interface CatalogEntryRegistered {
  type: typeof CATALOG_ENTRY_REGISTERED;
  data: { entryId: string; paymentId: string; evidenceCore: JsonObject; sha256: string };
}

export function parseCatalogEntryEvent(event: { type: string; data: unknown }): CatalogEntryRegistered {
  if (event.type !== CATALOG_ENTRY_REGISTERED) throw new Error(`unexpected event ${event.type} in a verify-catalog stream`);
  return { type: CATALOG_ENTRY_REGISTERED, data: catalogEntryRegisteredData.parse(event.data) as CatalogEntryRegistered['data'] };
}
