import type { EventStore } from './port.ts';

/**
 * Whether the log ends before `position`, a position some reader saved (a checkpoint): a log
 * restored from a backup ends before a checkpoint taken later, and the events it records next sit
 * at positions the checkpoint says were read already. False when nothing was saved, or when the
 * store does not tell where its log ends. The log's end is given for the reader's warning.
 */
export async function logEndsBefore(store: EventStore, position: bigint | undefined): Promise<{ endsBefore: boolean; logEnd: bigint | undefined }> {
  if (position === undefined || !store.headPosition) return { endsBefore: false, logEnd: undefined };
  const logEnd = await store.headPosition();
  return { endsBefore: logEnd === undefined || logEnd < position, logEnd };
}
