import { z } from 'zod';
import { recordedJsonData } from '../../../kernel/json.ts';
import type { RecordedEvent } from '../../../events/port.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';

/**
 * Events of the Agent Infrastructure aggregates. Only memory keeps state: one stream per
 * payer's (agent_id, key) store. Its first event names the owner (the payer whose store it
 * is); every put appends one version.
 */
export const MEMORY_STREAM_PREFIX = 'memory-';

/**
 * A payer's store: `memory-<payer>-<sha256 of the canonical [agent_id, key]>`. The address has
 * a fixed form (0x and 40 lowercase hex) and the names are hashed, so no choice of agent_id and
 * key makes two stores share a stream (no separator to smuggle, no length limit to hit), and the
 * stores of two payers never meet.
 */
export function memoryStreamName(payer: string, agentId: string, key: string): string {
  return `${MEMORY_STREAM_PREFIX}${payer.toLowerCase()}-${canonicalSha256([agentId, key])}`;
}

/**
 * Where stores lived before they were scoped to their payer: one stream per (agent_id, key),
 * whoever paid. No new store is opened under this name; a store already there stays its
 * recorded owner's, read and extended in place (commands.ts).
 */
export function legacyMemoryStreamName(agentId: string, key: string): string {
  return `${MEMORY_STREAM_PREFIX}${canonicalSha256([agentId, key])}`;
}

export const MEMORY_EVENT_TYPES = {
  opened: 'MemoryStoreOpened',
  versionWritten: 'MemoryVersionWritten',
} as const;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
/** A payer as the service records it: the payment's `from`, lowercase. */
export const payerAddress = z.string().regex(/^0x[0-9a-f]{40}$/);

/**
 * The version record exactly as it is signed under `sealed` (put and get alike). `owner` is the
 * payer whose store it is; versions written before stores were scoped to their payer have none.
 */
export const memoryVersionSchema = z
  .object({
    owner: payerAddress.optional(),
    agent_id: z.string(),
    key: z.string(),
    version: z.number().int().min(1),
    value: recordedJsonData,
    valueSha256: sha256Hex,
    prevStateHash: sha256Hex,
    stateHash: sha256Hex,
    writtenAt: z.number().int(),
  })
  .strict();

export const memoryStoreOpenedSchema = z
  .object({ agent_id: z.string(), key: z.string(), owner: payerAddress, openedAt: z.number().int(), paymentId: z.string() })
  .strict();

/** The version's members at the top level (so the chain audit reads them directly), plus its payment. */
export const memoryVersionWrittenSchema = memoryVersionSchema.extend({ paymentId: z.string() }).strict();

export type MemoryStoreOpened = z.infer<typeof memoryStoreOpenedSchema>;
export type MemoryVersionWritten = z.infer<typeof memoryVersionWrittenSchema>;

export type MemoryEvent =
  | { type: typeof MEMORY_EVENT_TYPES.opened; data: MemoryStoreOpened }
  | { type: typeof MEMORY_EVENT_TYPES.versionWritten; data: MemoryVersionWritten };

export class UnknownMemoryEvent extends Error {}

export function parseMemoryEvent(event: Pick<RecordedEvent, 'type' | 'data' | 'stream' | 'revision'>): MemoryEvent {
  switch (event.type) {
    case MEMORY_EVENT_TYPES.opened:
      return { type: event.type, data: memoryStoreOpenedSchema.parse(event.data) };
    case MEMORY_EVENT_TYPES.versionWritten:
      return { type: event.type, data: memoryVersionWrittenSchema.parse(event.data) };
    default:
      throw new UnknownMemoryEvent(`unknown event type ${event.type} in ${event.stream} at revision ${event.revision}`);
  }
}
