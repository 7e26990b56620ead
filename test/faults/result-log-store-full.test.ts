import { createHash, randomUUID } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import type { EventStore } from '../../src/events/port.ts';
import { PAYMENT_EVENT_TYPES } from '../../src/payments/saga/events.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { LeafStore } from '../../src/transparency/leaf-store.ts';
import { startResultLog } from '../../src/transparency/result-log.ts';
import { mountSmallDisk } from '../support/small-disk.ts';

/**
 * With EventStoreDB the event log is on another machine and takes paid calls while the disk
 * holding the result log's store is full. The leaves waiting for the store's next commit would
 * then grow by one a call for as long as the disk stays full. Here an in-memory event store
 * stands in for EventStoreDB and the store sits on a small tmpfs this test mounts (as root;
 * skipped, saying why, where mounting is not allowed).
 */
const disk = mountSmallDisk('result-log-store-full', '4m');

const stops: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const stop of stops) await stop().catch(() => {});
  disk.remove();
});

const keyring = createKeyring('result-log-store-full-secret-0123456789abcdef');
const digestOf = (i: number) => createHash('sha256').update(`result ${i}`).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function appendResults(store: EventStore, from: number, to: number): Promise<bigint> {
  let last = -1n;
  for (let i = from; i < to; i++)
    last = (await store.appendToStream(`payment-${i}`, [{ id: randomUUID(), type: PAYMENT_EVENT_TYPES.signed, data: { keyFamily: 'attest', keyId: 'k1', sha256: digestOf(i) } }])).position;
  return last;
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

describe.skipIf(!disk.mounted)('the result log when its store cannot commit and the event log goes on', () => {
  it('keeps at most the bound of leaves in memory, answers at once meanwhile, and folds them all again once the disk has room', async () => {
    const store = createMemoryEventStore();
    const errors: string[] = [];
    const log = { info() {}, warn() {}, error: (_: unknown, message: string) => errors.push(message) } as never;
    const dir = join(disk.path, 'store');
    const resultLog = await startResultLog(store, keyring, { checkpointIntervalMs: 60_000, log, leafStore: dir, uncommitted: { leaves: 200, resumeFreeBytes: 1024 * 1024, roomCheckMs: 50 } });
    stops.push(() => resultLog.stop());

    await appendResults(store, 0, 100);
    await until(() => resultLog.size() === 100, 'the first results are folded');
    await sleep(300); // committed (every 100 ms)

    const filler = disk.fill();
    await appendResults(store, 100, 150);
    await sleep(300); // the next commit fails
    expect(errors.some((message) => message.includes('could not be written'))).toBe(true);

    const last = await appendResults(store, 150, 1_000);
    await until(() => resultLog.pausedBecause() !== undefined, 'folding pauses');
    // Back at the last commit, and the later results are not held: the log does not grow.
    await until(() => resultLog.size() === 100, 'the uncommitted leaves are dropped');
    await appendResults(store, 1_000, 1_300);
    await sleep(200);
    expect(resultLog.size()).toBe(100);
    expect(resultLog.pausedBecause()).toMatch(/cannot be written \(a full disk\): the results from leaf 100 on are folded again/);
    expect(errors.some((message) => message.startsWith('result log paused'))).toBe(true);
    // A paid answer does not wait for a leaf that will not come now.
    const started = performance.now();
    await expect(resultLog.caughtUpTo(last, 10_000)).resolves.toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);

    unlinkSync(filler);
    await until(() => resultLog.pausedBecause() === undefined && resultLog.size() === 1_300, 'every result is folded again', 20_000);
    // The same tree as a log that never paused, over the same event log.
    const checkpoint = await resultLog.issueCheckpoint();
    const reference = await startResultLog(store, keyring, { checkpointIntervalMs: 60_000, log: { info() {}, warn() {}, error() {} } as never });
    await until(() => reference.size() === 1_300, 'the reference log is folded');
    expect(checkpoint?.root_hash).toBe(reference.consistency(1_300, 1_300).first_root);
    expect(resultLog.inclusion(digestOf(500), 1_300)?.leaf_index).toBe(500);
    await reference.stop();
    await stops.pop()!();

    const saved = LeafStore.openForReading(dir);
    expect(saved?.size).toBe(1_300);
    await saved?.close();
  });
});
