import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PAYMENT_EVENT_TYPES } from '../payments/saga/events.ts';
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

describe('the saved leaves', () => {
  const keyring = createKeyring('result-log-test-secret-0123456789abcdef');
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'result-leaves-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** Appends `count` results (each after an unrelated event), returns the position of the last. */
  async function appendResults(store: EventStore, count: number, tag: string): Promise<bigint> {
    let last = -1n;
    for (let i = 0; i < count; i++) {
      await store.appendToStream(`other-${tag}-${i}`, [{ id: randomUUID(), type: 'SomethingElse', data: { i } }]);
      const sha256 = digestOf(`${tag} ${i}`);
      last = (await store.appendToStream(`payment-${tag}-${i}`, [{ id: randomUUID(), type: PAYMENT_EVENT_TYPES.signed, data: { keyFamily: 'attest', keyId: 'k1', sha256 } }])).position;
    }
    return last;
  }

  const digestOf = (text: string) => createHash('sha256').update(text).digest('hex');
  const leafFile = () => join(dir, 'leaves');
  const startWithLeaves = (store: EventStore, log: never = quiet) => startResultLog(store, keyring, { checkpointIntervalMs: 60_000, log, leafFile: leafFile() });

  /** A result log that saves its leaves folds `count` new results and stops; returns the last one's position. */
  async function foldAndStop(store: EventStore, count: number, tag: string): Promise<bigint> {
    const log = await startWithLeaves(store);
    const last = await appendResults(store, count, tag);
    expect(await log.caughtUpTo(last, 5_000)).toBe(true);
    await log.stop();
    return last;
  }

  /** The store, recording where each subscription starts. */
  function recordingSubscriptions(store: EventStore): { store: EventStore; from: (bigint | undefined)[] } {
    const from: (bigint | undefined)[] = [];
    return { from, store: { ...store, subscribeToAll: (o) => (from.push(o.fromPosition), store.subscribeToAll(o)) } };
  }

  it('a restart loads them and folds only the events after the last one, to the same tree', async () => {
    const events = createMemoryEventStore();
    const first = await startWithLeaves(events);
    const lastSaved = await appendResults(events, 40, 'a');
    expect(await first.caughtUpTo(lastSaved, 5_000)).toBe(true);
    const rootBefore = first.consistency(1, 40).second_root;
    await first.stop();

    const later = await appendResults(events, 5, 'b');
    const recorded = recordingSubscriptions(events);
    const second = await startWithLeaves(recorded.store);
    expect(recorded.from).toEqual([lastSaved]);
    expect(await second.caughtUpTo(later, 5_000)).toBe(true);
    expect(second.size()).toBe(45);
    expect(second.consistency(1, 40).second_root).toBe(rootBefore);
    expect(second.leafIndexOf(digestOf('a 3'))).toBe(3);
    expect(second.leafIndexOf(digestOf('b 4'))).toBe(44);
    await second.stop();
  });

  it('cuts a torn record and folds the rest from the event log', async () => {
    const events = createMemoryEventStore();
    const last = await foldAndStop(events, 10, 'a');
    const bytes = await readFile(leafFile());
    await writeFile(leafFile(), bytes.subarray(0, bytes.length - 7));
    const second = await startWithLeaves(events);
    expect(await second.caughtUpTo(last, 5_000)).toBe(true);
    expect(second.size()).toBe(10);
    expect(second.leafIndexOf(digestOf('a 9'))).toBe(9);
    await second.stop();
  });

  it('leaves of another event log are found out, thrown away and folded again, and said so', async () => {
    await foldAndStop(createMemoryEventStore(), 12, 'one');

    const other = createMemoryEventStore();
    const last = await appendResults(other, 7, 'other');
    const warnings: string[] = [];
    const log = { info: () => {}, error: () => {}, warn: (_: unknown, message: string) => warnings.push(message) } as never;
    const second = await startWithLeaves(other, log);
    expect(await second.caughtUpTo(last, 5_000)).toBe(true);
    expect(second.size()).toBe(7);
    expect(warnings.join('\n')).toMatch(/the saved leaves do not match the event log .*folding it again/);
    expect(second.leafIndexOf(digestOf('other 6'))).toBe(6);
    await second.stop();
  });
});
