import { createHash, randomUUID } from 'node:crypto';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PAYMENT_EVENT_TYPES } from '../payments/saga/events.ts';
import type { EventStore } from '../events/port.ts';
import { createMemoryEventStore } from '../events/memory-store.ts';
import { createKeyring } from '../signing/keyring.ts';
import { startResultLog, type ResultLog } from './result-log.ts';

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
  const leafStore = () => join(dir, 'store');
  const startWithLeaves = (store: EventStore, log: never = quiet) => startResultLog(store, keyring, { checkpointIntervalMs: 60_000, log, leafStore: leafStore() });

  /** A result log that saves its leaves folds `count` new results and stops; returns the last one's position and the root of the whole tree. */
  async function foldAndStop(store: EventStore, count: number, tag: string): Promise<{ last: bigint; root: string }> {
    const log = await startWithLeaves(store);
    const last = await appendResults(store, count, tag);
    expect(await log.caughtUpTo(last, 5_000)).toBe(true);
    const root = log.consistency(1, log.size()).second_root;
    await log.stop();
    return { last, root };
  }

  /** A logger that keeps the warnings' messages. */
  function warningLog(): { warnings: string[]; log: never } {
    const warnings: string[] = [];
    return { warnings, log: { info: () => {}, error: () => {}, warn: (_: unknown, message: string) => warnings.push(message) } as never };
  }

  /** The store, recording where each subscription starts. */
  function recordingSubscriptions(store: EventStore): { store: EventStore; from: (bigint | undefined)[] } {
    const from: (bigint | undefined)[] = [];
    return { from, store: { ...store, subscribeToAll: (o) => (from.push(o.fromPosition), store.subscribeToAll(o)) } };
  }

  /**
   * Starts a result log on the saved store and checks that it subscribed from `from` (the last
   * saved leaf's position; undefined: from the start) and folded up to `last`, to `size` leaves.
   */
  async function restartedFrom(store: EventStore, expected: { from: bigint | undefined; last: bigint; size: number }, log: never = quiet): Promise<ResultLog> {
    const recorded = recordingSubscriptions(store);
    const restarted = await startWithLeaves(recorded.store, log);
    expect(recorded.from).toEqual([expected.from]);
    expect(await restarted.caughtUpTo(expected.last, 5_000)).toBe(true);
    expect(restarted.size()).toBe(expected.size);
    return restarted;
  }

  it('a restart loads them and folds only the events after the last one, to the same tree', async () => {
    const events = createMemoryEventStore();
    const { last: lastSaved, root: rootBefore } = await foldAndStop(events, 40, 'a');

    const later = await appendResults(events, 5, 'b');
    const second = await restartedFrom(events, { from: lastSaved, last: later, size: 45 });
    expect(second.consistency(1, 40).second_root).toBe(rootBefore);
    expect(second.leafIndexOf(digestOf('a 3'))).toBe(3);
    expect(second.leafIndexOf(digestOf('b 4'))).toBe(44);
    await second.stop();
  });

  it('a store that lost its last commits (a process killed before them) folds those leaves again, to the same tree', async () => {
    const events = createMemoryEventStore();
    const { last: lastKept } = await foldAndStop(events, 30, 'a');
    await cp(leafStore(), join(dir, 'snapshot'), { recursive: true });
    const { last: later, root: rootOfAll } = await foldAndStop(events, 6, 'b');

    await rm(leafStore(), { recursive: true });
    await cp(join(dir, 'snapshot'), leafStore(), { recursive: true });
    const restarted = await restartedFrom(events, { from: lastKept, last: later, size: 36 });
    expect(restarted.consistency(1, 36).second_root).toBe(rootOfAll);
    expect(restarted.leafIndexOf(digestOf('b 5'))).toBe(35);
    await restarted.stop();
  });

  it.skipIf(!existsSync('/proc/sys/kernel/random/boot_id'))('a store left open by an earlier boot of the machine (whose unsynced commits may be torn) is emptied and folded again, and said so', async () => {
    const events = createMemoryEventStore();
    const { last } = await foldAndStop(events, 9, 'a');
    const env = open({ path: leafStore() });
    env.openDB({ name: 'meta' }).putSync('opened-by', { bootId: 'an-earlier-boot', closed: false });
    await env.close();

    const { warnings, log } = warningLog();
    const second = await restartedFrom(events, { from: undefined, last, size: 9 }, log);
    expect(second.leafIndexOf(digestOf('a 8'))).toBe(8);
    expect(warnings.join('\n')).toMatch(/left open by an earlier boot/);
    await second.stop();
  });

  it('a store that cannot be opened (its file damaged) is deleted, folded again, and said so', async () => {
    const events = createMemoryEventStore();
    const { last } = await foldAndStop(events, 8, 'a');
    await writeFile(join(leafStore(), 'data.mdb'), Buffer.alloc(64 * 1024, 0x5a));
    const { warnings, log } = warningLog();
    const second = await restartedFrom(events, { from: undefined, last, size: 8 }, log);
    expect(second.leafIndexOf(digestOf('a 7'))).toBe(7);
    expect(warnings.join('\n')).toMatch(/cannot be opened/);
    await second.stop();
  });

  it('a store missing nodes its size promises is emptied and folded again, to the same tree, and said so', async () => {
    const events = createMemoryEventStore();
    const { last, root } = await foldAndStop(events, 40, 'a');
    const env = open({ path: leafStore() });
    env.openDB({ name: 'nodes', keyEncoding: 'binary', encoding: 'binary' }).clearSync();
    await env.close();

    const { warnings, log } = warningLog();
    const second = await restartedFrom(events, { from: undefined, last, size: 40 }, log);
    expect(second.consistency(1, 40).second_root).toBe(root);
    expect(warnings.join('\n')).toMatch(/store is incomplete; folding the event log again/);
    await second.stop();
  });

  it('leaves of another event log are found out, thrown away and folded again, and said so', async () => {
    await foldAndStop(createMemoryEventStore(), 12, 'one');

    const other = createMemoryEventStore();
    const last = await appendResults(other, 7, 'other');
    const { warnings, log } = warningLog();
    const second = await restartedFrom(other, { from: undefined, last, size: 7 }, log);
    expect(warnings.join('\n')).toMatch(/the saved leaves do not match the event log .*folding it again/);
    expect(second.leafIndexOf(digestOf('other 6'))).toBe(6);
    await second.stop();
  });
});
