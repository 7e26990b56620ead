import { join } from 'node:path';
import { openFileEventStore, type HeadAwareEventStore } from './file-log/store.ts';
import { stderrLogger, type EventLogger } from './file-log/logger.ts';
import type { EventStore } from './port.ts';
import { openStateShelf } from './state-shelf.ts';
import { markExclusiveStore } from './sole-writer.ts';

export type { EventLogger } from './file-log/logger.ts';
export { CorruptLogError, DataDirectoryLockedError } from './file-log/errors.ts';
export type { HeadAwareEventStore } from './file-log/store.ts';

export interface EventStoreSettings {
  /** esdb://... or esdb+discover://...: EventStoreDB. Unset: the embedded file log in DATA_DIR. */
  EVENTSTORE_URL?: string;
  /** EventStoreDB's MaxAppendSize; default the server's own, 1 MiB. */
  EVENTSTORE_MAX_APPEND_BYTES?: number;
  DATA_DIR: string;
  /** What opening the file log checks (recovery.ts); default every frame. */
  EVENT_LOG_VERIFY?: 'all' | 'checkpoint';
}

/** Where the embedded log lives inside DATA_DIR. */
export function eventLogDirectory(dataDir: string): string {
  return join(dataDir, 'events');
}

/**
 * Where this process keeps the state snapshots of EventStoreDB's long streams (state-shelf.ts):
 * on its own disk, a cache of the cluster's log checked against it before each use, so each
 * instance keeps its own.
 */
export function esdbStatesDirectory(dataDir: string): string {
  return join(dataDir, 'eventstoredb-states');
}

/** `store` with a shelf of state snapshots in `dir`, closed before the store. */
async function withStateShelf(store: EventStore, dir: string, log: EventLogger): Promise<EventStore> {
  const stateShelf = await openStateShelf(dir, log);
  const close = async (): Promise<void> => {
    await stateShelf.close();
    await store.close();
  };
  return Object.assign({}, store, { stateShelf, close });
}

/** Where projection checkpoints live inside DATA_DIR (beside the embedded log). */
export function projectionCheckpointDirectory(dataDir: string): string {
  return join(dataDir, 'projections');
}

/**
 * The composition root's one call: EventStoreDB when EVENTSTORE_URL is set, else the embedded
 * file log. Opening the file log recovers it; a corrupt log (CorruptLogError) or a directory
 * already in use (DataDirectoryLockedError) rejects with a message fit to print before exiting.
 */
export async function openEventStore(settings: EventStoreSettings, log: EventLogger = stderrLogger): Promise<EventStore> {
  if (settings.EVENTSTORE_URL) {
    const store = await withStateShelf(await openEsdb(settings, settings.EVENTSTORE_URL, log), esdbStatesDirectory(settings.DATA_DIR), log);
    log.info({ eventStore: 'eventstoredb' }, 'event store: EventStoreDB');
    return store;
  }
  // Opened for writing, the file log holds its directory's lock: no other process writes to it.
  return markExclusiveStore(await openFileEventStore({ dir: eventLogDirectory(settings.DATA_DIR), log, verify: settings.EVENT_LOG_VERIFY }));
}

/**
 * For auditors and tools: the same choice, but the file log is opened read-only (no writer lock,
 * no repair), so it can run beside a live service; it also reports where the log ends.
 */
export async function openEventStoreForReading(settings: EventStoreSettings, log: EventLogger = stderrLogger): Promise<HeadAwareEventStore> {
  if (settings.EVENTSTORE_URL) return openEsdb(settings, settings.EVENTSTORE_URL, log);
  return openFileEventStore({ dir: eventLogDirectory(settings.DATA_DIR), log, readOnly: true });
}

/** Loaded only when used: the gRPC client costs a noticeable part of a file-log start. */
async function openEsdb(settings: EventStoreSettings, connectionString: string, log: EventLogger): Promise<HeadAwareEventStore> {
  const { createEsdbEventStore } = await import('./esdb/store.ts');
  const maxAppendBytes = settings.EVENTSTORE_MAX_APPEND_BYTES;
  return createEsdbEventStore({ connectionString, log, ...(maxAppendBytes === undefined ? {} : { maxAppendBytes }) });
}
