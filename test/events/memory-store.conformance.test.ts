import { describe } from 'vitest';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { eventStoreConformance } from './conformance.ts';

describe('in-memory event store: conformance', () => {
  eventStoreConformance({
    // With a limit on one append, as EventStoreDB has, so that the limit's rule is run here too.
    open: async () => createMemoryEventStore({ appendLimitBytes: 256 * 1024 }),
    dispose: (store) => store.close(),
  });
});
