import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { openFileEventStore } from '../../src/events/file-log/store.ts';
import type { EventStore } from '../../src/events/port.ts';
import { eventStoreConformance } from './conformance.ts';
import { silentLogger } from './helpers.ts';

describe('file event log: conformance', () => {
  const dirs = new Map<EventStore, string>();
  eventStoreConformance({
    open: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'eventlog-conformance-'));
      // Small segments, so that reads and subscriptions cross segment boundaries here too.
      const store = await openFileEventStore({ dir, log: silentLogger, maxSegmentBytes: 2048 });
      dirs.set(store, dir);
      return store;
    },
    dispose: async (store) => {
      await store.close();
      await rm(dirs.get(store)!, { recursive: true, force: true });
      dirs.delete(store);
    },
  });
});
