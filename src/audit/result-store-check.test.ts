import { createHash, randomUUID } from 'node:crypto';
import { open as openFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { open as openLmdb } from 'lmdb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryEventStore } from '../events/memory-store.ts';
import type { EventStore } from '../events/port.ts';
import { PAYMENT_EVENT_TYPES } from '../payments/saga/events.ts';
import { createKeyring } from '../signing/keyring.ts';
import { LeafStore } from '../transparency/leaf-store.ts';
import { startResultLog } from '../transparency/result-log.ts';
import { auditEventLog } from './audit.ts';

const keyring = createKeyring('result-store-check-secret-0123456789abcdef');
const quiet = { info: () => {}, warn: () => {}, error: () => {} } as never;
const RESULTS = 40;

let dir: string;
let events: EventStore;
const storeDir = () => join(dir, 'store');
const positions: bigint[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'result-store-check-'));
  events = createMemoryEventStore();
  positions.length = 0;
  const log = await startResultLog(events, keyring, { checkpointIntervalMs: 60_000, log: quiet, leafStore: storeDir() });
  for (let i = 0; i < RESULTS; i++) {
    const sha256 = createHash('sha256').update(`result ${i}`).digest('hex');
    positions.push((await events.appendToStream(`payment-${i}`, [{ id: randomUUID(), type: PAYMENT_EVENT_TYPES.signed, data: { keyFamily: 'attest', keyId: 'k1', sha256 } }])).position);
  }
  expect(await log.caughtUpTo(positions.at(-1)!, 5_000)).toBe(true);
  await log.stop();
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** The audit of the log with the store read as an auditor reads it; its findings about the store. */
async function auditWithStore(): Promise<{ checked: number | undefined; failures: { position?: bigint; message: string }[] }> {
  const resultStore = LeafStore.openForReading(storeDir())!;
  try {
    const report = await auditEventLog({ store: events, keyring, chainRules: [], resultStore });
    return { checked: report.resultStoreChecked, failures: report.failures.filter((f) => f.kind === 'result-store') };
  } finally {
    await resultStore.close();
  }
}

describe('the audit checks the result log store against the results', () => {
  it('passes a store that holds what the log gives, every leaf compared', async () => {
    expect(await auditWithStore()).toEqual({ checked: RESULTS, failures: [] });
  });

  it('names a stored leaf that is not its result, even with a valid checksum', async () => {
    const file = await openFile(join(storeDir(), 'leaves'), 'r+');
    const record = Buffer.alloc(48);
    await file.read(record, 0, 48, 7 * 48);
    record[0]! ^= 0xff;
    record.writeUInt32LE(crc32(record.subarray(0, 44)), 44);
    await file.write(record, 0, 48, 7 * 48);
    await file.close();
    const { failures } = await auditWithStore();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ position: positions[7], message: expect.stringMatching(/^leaf 7 of the result log's store is .*the log gives/) });
  });

  it('names a damaged record, and only it', async () => {
    const file = await openFile(join(storeDir(), 'leaves'), 'r+');
    await file.write(Buffer.from([0x01]), 0, 1, 9 * 48 + 3);
    await file.close();
    const { failures } = await auditWithStore();
    expect(failures).toEqual([expect.objectContaining({ position: positions[9], message: "leaf 9 of the result log's store is missing or damaged" })]);
  });

  it('names a stored inner node that is not the hash of its leaves', async () => {
    const env = openLmdb({ path: storeDir() });
    const key = Buffer.from([4, 0, 0, 0, 1]); // level 4, node 1: leaves 16-31
    env.openDB({ name: 'nodes', keyEncoding: 'binary', encoding: 'binary' }).putSync(key, Buffer.alloc(32, 7));
    await env.close();
    const { failures } = await auditWithStore();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ position: positions[31], message: "node 1 of level 4 of the result log's store is not the hash of its leaves" });
  });
});
