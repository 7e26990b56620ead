import { describe } from 'vitest';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { eventStoreConformance } from './conformance.ts';

describe('in-memory event store: conformance', () => {
  eventStoreConformance({
    open: async () => createMemoryEventStore(),
    dispose: (store) => store.close(),
  });
});
