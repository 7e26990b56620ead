import { z } from 'zod';
import type { RecordedEvent } from '../../../events/port.ts';

/**
 * Events of the Agent Infrastructure aggregates. Only memory keeps state: one stream per
 * (agent_id, key) store, `memory-<sha256 of the canonical [agent_id, key]>`. Its first event
 * names the owner (the payer that created the store); every put appends one version.
 */
export const MEMORY_STREAM_PREFIX = 'memory-';

export const MEMORY_EVENT_TYPES = {
  opened: 'MemoryStoreOpened',
  versionWritten: 'MemoryVersionWritten',
} as const;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
const payerAddress = z.string().regex(/^0x[0-9a-f]{40}$/);

/** The version record exactly as it is signed under `sealed` (put and get alike). */
export const memoryVersionSchema = z
  .object({
    agent_id: z.string(),
    key: z.string(),
    version: z.number().int().min(1),
    value: z.json(),
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
