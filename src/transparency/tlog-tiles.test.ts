import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMemoryEventStore } from '../events/memory-store.ts';
import { PAYMENT_EVENT_TYPES } from '../payments/saga/events.ts';
import { createKeyring } from '../signing/keyring.ts';
import type { EventStore } from '../events/port.ts';
import { startResultLog } from './result-log.ts';
import { parseTilePath, readEntryBundle, tilePath, type TileRef } from './tlog-tiles.ts';
// RFC 6962 written out apart from the service's tree, to check the tiles against.
import { plainLeafHash, plainTreeHash } from '../../test/support/result-log-client.ts';

describe('tile paths (C2SP tlog-tiles)', () => {
  it('reads and writes the one spelling the specification gives', () => {
    const cases: Array<[string, TileRef]> = [
      ['0/000', { level: 0, index: 0, width: 256 }],
      ['0/x001/x234/067', { level: 0, index: 1234067, width: 256 }],
      ['1/x001/x234/067.p/8', { level: 1, index: 1234067, width: 8 }],
      ['entries/x001/000.p/255', { level: 'entries', index: 1000, width: 255 }],
      ['63/999', { level: 63, index: 999, width: 256 }],
    ];
    for (const [path, tile] of cases) {
      expect(parseTilePath(path)).toEqual({ tile });
      expect(tilePath(tile)).toBe(path);
    }
  });

  it('names no tile with any other spelling, so two paths never serve the same bytes', () => {
    for (const path of ['00/000', '64/000', '-1/000', 'x/000', '0/1', '0/0001', '0/x1/000', '0/001/002', '0/x000/001', '0/000.p/0', '0/000.p/256', '0/000.p/08', '0/000.p/', '0/000.p', 'entries', '0', '', 'entries/000/', '0/../000', '0/x999/x999/x999/x999/x999/x999/999'])
      expect(parseTilePath(path), path).toHaveProperty('reason');
  });
});

const hashesOf = (tile: Buffer) => Array.from({ length: tile.length / 32 }, (_, i) => tile.subarray(i * 32, (i + 1) * 32));

const quiet = { info: () => {}, warn: () => {}, error: () => {} } as never;
const keyring = createKeyring('tlog-tiles-test-secret-0123456789abcdef');

async function appendResults(store: EventStore, from: number, count: number): Promise<string[]> {
  const digests: string[] = [];
  for (let i = from; i < from + count; i++) {
    const digest = createHash('sha256').update(`result ${i}`).digest('hex');
    digests.push(digest);
    await store.appendToStream(`payment-${i}`, [{ id: randomUUID(), type: PAYMENT_EVENT_TYPES.signed, data: { keyFamily: i % 2 ? 'attest' : 'uptime', keyId: 'k1', sha256: digest } }]);
  }
  return digests;
}

async function folded(log: { size(): number }, size: number): Promise<void> {
  while (log.size() < size) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('the result log as tiles', () => {
  it('serves the tiles of the specification\'s example tree of 70,000 leaves, from which a client computes the signed root and every leaf', { timeout: 60_000 }, async () => {
    const store = createMemoryEventStore();
    const digests = await appendResults(store, 0, 70_000);
    const log = await startResultLog(store, keyring, { checkpointIntervalMs: 60_000, log: quiet });
    await folded(log, 70_000);
    expect(log.tile({ level: 0, index: 0, width: 256 })).toBeUndefined(); // no checkpoint yet
    const checkpoint = (await log.issueCheckpoint())!;
    expect(checkpoint.tree_size).toBe(70_000);

    // 273 full level-0 tiles and one of width 112, one full level-1 tile and one of width 17, one level-2 tile of width 1.
    const level0 = [...Array.from({ length: 273 }, (_, n) => log.tile({ level: 0, index: n, width: 256 })!), log.tile({ level: 0, index: 273, width: 112 })!];
    const leafHashes = level0.flatMap(hashesOf);
    expect(leafHashes).toHaveLength(70_000);
    expect(plainTreeHash(leafHashes).toString('hex')).toBe(checkpoint.root_hash);

    const level1 = [...hashesOf(log.tile({ level: 1, index: 0, width: 256 })!), ...hashesOf(log.tile({ level: 1, index: 1, width: 17 })!)];
    expect(level1.map((h) => h.toString('hex'))).toEqual(Array.from({ length: 273 }, (_, i) => plainTreeHash(leafHashes.slice(i * 256, (i + 1) * 256)).toString('hex')));
    expect(log.tile({ level: 2, index: 0, width: 1 })!.toString('hex')).toBe(plainTreeHash(leafHashes.slice(0, 65_536)).toString('hex'));

    // Each entry is the leaf's RFC 8785 bytes, and hashes to its leaf hash.
    const bundle = readEntryBundle(log.tile({ level: 'entries', index: 273, width: 112 })!);
    expect(bundle).toHaveLength(112);
    expect(JSON.parse(bundle[111]!.toString('utf8'))).toEqual({ key_family: 'attest', key_id: 'k1', sha256: digests[69_999] });
    bundle.forEach((entry, i) => expect(plainLeafHash(entry).equals(leafHashes[273 * 256 + i]!)).toBe(true));

    // A partial tile of an earlier size is the same bytes as the head of the full one.
    expect(log.tile({ level: 0, index: 5, width: 3 })!.equals(level0[5]!.subarray(0, 96))).toBe(true);
    // Nothing the signed tree does not hold: a full tile past it, a partial wider than it, a level above it.
    expect(log.tile({ level: 0, index: 273, width: 256 })).toBeUndefined();
    expect(log.tile({ level: 'entries', index: 273, width: 113 })).toBeUndefined();
    expect(log.tile({ level: 1, index: 1, width: 18 })).toBeUndefined();
    expect(log.tile({ level: 2, index: 0, width: 2 })).toBeUndefined();
    expect(log.tile({ level: 3, index: 0, width: 1 })).toBeUndefined();
    await log.stop();
  });
});

describe('the tiles of a log kept on disk', () => {
  it('are the same whether their leaves were committed to the store before a restart or wait in memory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tlog-tiles-'));
    try {
      const store = createMemoryEventStore();
      const options = { checkpointIntervalMs: 60_000, log: quiet, leafStore: join(dir, 'store') };
      const first = await startResultLog(store, keyring, options);
      await appendResults(store, 0, 300);
      await folded(first, 300);
      await first.stop(); // commits the 300 leaves
      await appendResults(store, 300, 300);
      const log = await startResultLog(store, keyring, options);
      await folded(log, 600);
      const checkpoint = (await log.issueCheckpoint())!;
      // Leaves 256 .. 599: committed ones and new ones in one tile and one bundle.
      const tiles = [log.tile({ level: 0, index: 0, width: 256 })!, log.tile({ level: 0, index: 1, width: 256 })!, log.tile({ level: 0, index: 2, width: 88 })!];
      const leafHashes = tiles.flatMap(hashesOf);
      expect(plainTreeHash(leafHashes).toString('hex')).toBe(checkpoint.root_hash);
      const entries = readEntryBundle(log.tile({ level: 'entries', index: 1, width: 256 })!);
      entries.forEach((entry, i) => expect(plainLeafHash(entry).equals(leafHashes[256 + i]!), `leaf ${256 + i}`).toBe(true));
      expect(log.tile({ level: 1, index: 0, width: 2 })!.equals(Buffer.concat([plainTreeHash(leafHashes.slice(0, 256)), plainTreeHash(leafHashes.slice(256, 512))]))).toBe(true);
      await log.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
