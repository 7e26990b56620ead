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
import { auditEventLog, type AuditReport } from './audit.ts';
import { formatReport } from './report.ts';

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

/** The audit of the log with the store read as an auditor reads it. */
async function auditReport(): Promise<AuditReport> {
  const resultStore = LeafStore.openForReading(storeDir())!;
  try {
    return await auditEventLog({ store: events, keyring, chainRules: [], resultStore });
  } finally {
    await resultStore.close();
  }
}

/** The audit's findings about the store. */
async function auditWithStore(): Promise<{ checked: number | undefined; digestRuns: { runs: number; entries: number } | undefined; failures: { position?: bigint; message: string }[] }> {
  const report = await auditReport();
  return { checked: report.resultStoreChecked, digestRuns: report.resultStoreDigestRuns, failures: report.failures.filter((f) => f.kind === 'result-store') };
}

/** Opens the store as its service does, with digest runs of 8 leaves: it writes its leaves' runs and merges them. */
async function writeDigestRunsOf8(): Promise<void> {
  const store = LeafStore.open(storeDir(), () => {}, { digestRunLeaves: 8 });
  await store.digestRunsMerged();
  await store.close();
}

/** Rewrites the entries of a run file (12 bytes each: the key, then the leaf as a big-endian u32). */
async function editRun(name: string, edit: (entries: Buffer) => void): Promise<void> {
  const file = await openFile(join(storeDir(), 'digest-runs', name), 'r+');
  const count = (await file.stat()).size;
  const bytes = Buffer.alloc(count);
  await file.read(bytes, 0, count, 0);
  edit(bytes);
  await file.write(bytes, 0, count, 0);
  await file.close();
}
const FIRST_RUN = 'run-000000000000-000000000032';

describe('the audit checks the result log store against the results', () => {
  it('passes a store that holds what the log gives, every leaf compared', async () => {
    expect(await auditWithStore()).toEqual({ checked: RESULTS, digestRuns: { runs: 0, entries: 0 }, failures: [] });
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

describe("the audit checks the result log store's digest lookup against the results", () => {
  beforeEach(writeDigestRunsOf8);

  it('passes runs that list every leaf under its digest', async () => {
    // 40 leaves in runs of 8: the first four merged into one of 32.
    expect(await auditWithStore()).toEqual({ checked: RESULTS, digestRuns: { runs: 2, entries: RESULTS }, failures: [] });
  });

  it('says in the report how many runs and entries it checked', async () => {
    expect(formatReport(await auditReport(), { source: 'test', seconds: 1 })).toContain(
      `result log store:    ${RESULTS} leaves and their nodes checked against the results, and its digest lookup's 2 runs (${RESULTS} entries)`,
    );
  });

  it('passes a run that leaves out a result signed again, since the lookup answers it with its first leaf', async () => {
    const log = await startResultLog(events, keyring, { checkpointIntervalMs: 60_000, log: quiet, leafStore: storeDir() });
    const again = createHash('sha256').update('result 3').digest('hex');
    let last = 0n;
    for (let i = 0; i < 8; i++) last = (await events.appendToStream(`payment-again-${i}`, [{ id: randomUUID(), type: PAYMENT_EVENT_TYPES.signed, data: { keyFamily: 'attest', keyId: 'k1', sha256: again } }])).position;
    expect(await log.caughtUpTo(last, 5_000)).toBe(true);
    await log.stop();
    await writeDigestRunsOf8();
    // The run of leaves 40 to 48 lists the first repeat (leaf 3 was in a run, not in memory) and leaves out the seven after it.
    expect(await auditWithStore()).toEqual({ checked: RESULTS + 8, digestRuns: { runs: 3, entries: RESULTS + 1 }, failures: [] });
  });

  it('names an entry under another leaf, and the leaf the lookup then misses', async () => {
    let moved = 0;
    let missed = 0;
    await editRun(FIRST_RUN, (entries) => {
      missed = entries.readUInt32BE(5 * 12 + 8);
      moved = entries.readUInt32BE(6 * 12 + 8);
      entries.writeUInt32BE(moved, 5 * 12 + 8);
    });
    const { failures } = await auditWithStore();
    expect(failures.map((f) => f.message)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^the digest run of leaves 0 to 32 lists leaf ${moved} (under|twice)`)),
        `the digest run of leaves 0 to 32 does not list leaf ${missed}, and the lookup answers its digest with no leaf`,
      ]),
    );
    expect(failures.every((f) => f.position === positions[31])).toBe(true);
  });

  it("names entries whose leaves were swapped: each leaf listed once, under the other's digest", async () => {
    const leaves: number[] = [];
    await editRun(FIRST_RUN, (entries) => {
      leaves.push(entries.readUInt32BE(5 * 12 + 8), entries.readUInt32BE(6 * 12 + 8));
      entries.writeUInt32BE(leaves[1]!, 5 * 12 + 8);
      entries.writeUInt32BE(leaves[0]!, 6 * 12 + 8);
    });
    const { failures } = await auditWithStore();
    expect(failures.map((f) => f.message)).toEqual([
      expect.stringMatching(new RegExp(`^the digest run of leaves 0 to 32 lists leaf ${leaves[1]} under [0-9a-f]{16}; its result's digest begins [0-9a-f]{16}$`)),
      expect.stringMatching(new RegExp(`^the digest run of leaves 0 to 32 lists leaf ${leaves[0]} under [0-9a-f]{16}; its result's digest begins [0-9a-f]{16}$`)),
    ]);
  });

  it('names an entry for a leaf outside its run', async () => {
    let missed = 0;
    await editRun(FIRST_RUN, (entries) => {
      missed = entries.readUInt32BE(9 * 12 + 8);
      entries.writeUInt32BE(35, 9 * 12 + 8);
    });
    const { failures } = await auditWithStore();
    expect(failures.map((f) => f.message)).toEqual([
      'the digest run of leaves 0 to 32 lists leaf 35, outside its range',
      `the digest run of leaves 0 to 32 does not list leaf ${missed}, and the lookup answers its digest with no leaf`,
    ]);
  });

  it('names the first three problems of a run and counts the others', async () => {
    let zero = 0;
    await editRun(FIRST_RUN, (entries) => {
      zero = entries.readUInt32BE(8);
      for (let e = 1; e < 32; e++) entries.writeUInt32BE(zero, e * 12 + 8); // every entry now names the first one's leaf
    });
    const { failures } = await auditWithStore();
    // 31 entries name a leaf listed already; 31 leaves are not listed and their digests found by no lookup.
    expect(failures.map((f) => f.message)).toEqual([
      `the digest run of leaves 0 to 32 lists leaf ${zero} twice`,
      `the digest run of leaves 0 to 32 lists leaf ${zero} twice`,
      `the digest run of leaves 0 to 32 lists leaf ${zero} twice`,
      'the digest run of leaves 0 to 32: 59 more problems',
    ]);
  });

  it('names entries out of order, on which the lookup would miss', async () => {
    await editRun(FIRST_RUN, (entries) => {
      const first = Buffer.from(entries.subarray(0, 12));
      entries.copy(entries, 0, 12, 24);
      first.copy(entries, 12);
      entries.copy(entries, 32 * 12, 0, 8); // the fence follows the new first entry
    });
    const { failures } = await auditWithStore();
    expect(failures).toEqual([expect.objectContaining({ position: positions[31], message: 'the digest run of leaves 0 to 32: entry 1 is not after the one before it' })]);
  });

  it('names a fence that is not its block\'s first key', async () => {
    await editRun(FIRST_RUN, (entries) => {
      entries[32 * 12 + 7]! ^= 0x01;
    });
    const { failures } = await auditWithStore();
    expect(failures).toEqual([expect.objectContaining({ message: 'the digest run of leaves 0 to 32: the fence of block 0 is not its first key' })]);
  });
});
