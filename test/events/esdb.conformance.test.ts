import { describe } from 'vitest';
import { createEsdbEventStore } from '../../src/events/esdb/store.ts';
import { eventStoreConformance } from './conformance.ts';
import { silentLogger } from './helpers.ts';

const url = process.env.EVENTSTORE_URL;
if (!url) console.log('EventStoreDB conformance run skipped: EVENTSTORE_URL is not set (e.g. EVENTSTORE_URL=esdb://localhost:2113?tls=false npm test)');

describe.skipIf(!url)('EventStoreDB event store: conformance', () => {
  eventStoreConformance({
    open: async () => createEsdbEventStore({ connectionString: url!, log: silentLogger }),
    dispose: (store) => store.close(),
  });
});
