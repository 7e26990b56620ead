import { describe, expect, it } from 'vitest';
import type { EventStore } from '../events/port.ts';
import { createMemoryEventStore } from '../events/memory-store.ts';
import { createKeyring } from '../signing/keyring.ts';
import { startResultLog } from './result-log.ts';

const quiet = { info: () => {}, warn: () => {}, error: () => {} } as never;

/** A store whose subscription has not delivered anything yet: the result log is still catching up. */
function storeStillCatchingUp(): EventStore {
  const store = createMemoryEventStore();
  return { ...store, subscribeToAll: () => ({ close: async () => {} }) };
}

describe('a paid answer waiting for its leaf', () => {
  it('does not wait while the result log is catching up from far behind: the answer goes at once, without the index', async () => {
    const log = await startResultLog(storeStillCatchingUp(), createKeyring('result-log-test-secret-0123456789abcdef'), { checkpointIntervalMs: 60_000, log: quiet, catchUpLagEvents: 100n });
    // Without the catch-up rule this waits the whole minute and the test times out.
    await expect(log.caughtUpTo(1_000n, 60_000)).resolves.toBe(false);
    await log.stop();
  });

  it('waits for an event close behind, as when the log is live', async () => {
    const log = await startResultLog(storeStillCatchingUp(), createKeyring('result-log-test-secret-0123456789abcdef'), { checkpointIntervalMs: 60_000, log: quiet, catchUpLagEvents: 100n });
    const started = performance.now();
    await expect(log.caughtUpTo(50n, 200)).resolves.toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    await log.stop();
  });
});
