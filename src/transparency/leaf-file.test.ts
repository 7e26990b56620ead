import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LeafFile, type StoredLeaf } from './leaf-file.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leaf-file-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const digest = (text: string) => createHash('sha256').update(text).digest();
/** Leaves whose keys change every 1,000 and vary in length, so records straddle the 1 MiB read chunks at every offset. */
const leafAt = (i: number): StoredLeaf => ({ position: BigInt(3 * i + 2), leafHash: digest(`leaf ${i}`), sha256: digest(`result ${i}`), key: `attest key-${'x'.repeat(Math.floor(i / 1000) % 37)}` });

function load(path: string): { leaves: StoredLeaf[]; file: LeafFile } {
  const leaves: StoredLeaf[] = [];
  const file = LeafFile.open(path, (leaf) => leaves.push({ ...leaf, leafHash: Buffer.from(leaf.leafHash), sha256: Buffer.from(leaf.sha256) }), (err) => {
    throw err;
  });
  return { leaves, file };
}

describe('the result log leaf file', () => {
  it('gives back every leaf appended, in order, across read chunks', async () => {
    const path = join(dir, 'leaves');
    const writer = load(path).file;
    for (let i = 0; i < 25_000; i++) writer.append(leafAt(i));
    writer.close();
    expect((await stat(path)).size).toBeGreaterThan(2 * 1024 * 1024);
    const { leaves, file } = load(path);
    file.close();
    expect(leaves).toEqual(Array.from({ length: 25_000 }, (_, i) => leafAt(i)));
  });

  it('stops at the first record whose checksum fails and cuts the file there', async () => {
    const path = join(dir, 'leaves');
    const writer = load(path).file;
    for (let i = 0; i < 100; i++) writer.append(leafAt(i));
    writer.close();
    const bytes = await readFile(path);
    const recordBytes = bytes.length / 100; // Keys of the first 1,000 leaves have one length.
    bytes[60 * recordBytes + 20]! ^= 0x01;
    await writeFile(path, bytes);
    const { leaves, file } = load(path);
    expect(leaves).toHaveLength(60);
    file.append(leafAt(60));
    file.close();
    expect((await stat(path)).size).toBe(61 * recordBytes);
    const again = load(path);
    again.file.close();
    expect(again.leaves.at(-1)).toEqual(leafAt(60));
  });
});
