import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, open, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open as openLmdb } from 'lmdb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DigestRuns } from './digest-runs.ts';
import { LeafStore, type StoredLeaf } from './leaf-store.ts';
import { MerkleLog } from '../signing/merkle-log.ts';

const digest = (i: number) => createHash('sha256').update(`result ${i}`).digest();
const leafNumber = (i: number): StoredLeaf => ({ position: 3 * i + 2, sha256: digest(i), key: i % 5 === 0 ? 'attest k2' : 'attest k1' });
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const hexes = (list: Uint8Array[]) => list.map(hex);
const leafHashOf = (leaf: StoredLeaf) => createHash('sha256').update(Buffer.from([0])).update(leaf.key).update(leaf.sha256).digest();

/** A tree over the store, as the result log builds it. */
function treeOver(store: LeafStore): MerkleLog {
  return new MerkleLog((index) => leafHashOf(store.leafAt(index)), store, store.size);
}

function appendTo(store: LeafStore, tree: MerkleLog, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const leaf = leafNumber(i);
    expect(store.append(leaf)).toBe(i);
    tree.appendLeafHash(leafHashOf(leaf));
  }
}

describe('the result log store on disk', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leaf-store-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('finds the leaf of an event position, committed or in the tail, and none for a position that holds no result', async () => {
    const store = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    const tree = treeOver(store);
    appendTo(store, tree, 0, 1_000);
    await store.flush();
    appendTo(store, tree, 1_000, 1_040);
    for (let i = 0; i < 1_040; i++) {
      expect(store.leafOfPosition(leafNumber(i).position)).toBe(i);
      expect(store.leafOfPosition(leafNumber(i).position + 1)).toBeUndefined();
    }
    expect(store.leafOfPosition(0)).toBeUndefined();
    expect(store.leafOfPosition(leafNumber(2_000).position)).toBeUndefined();
    await store.close();
  });

  it('gives back every leaf, lookup and proof across commits and a reopen, the same as a tree held in memory', async () => {
    const count = 5_000;
    const inMemory = new MerkleLog();
    for (let i = 0; i < count; i++) inMemory.appendLeafHash(leafHashOf(leafNumber(i)));

    const store = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    const tree = treeOver(store);
    // Commits at uneven sizes, so that nodes of every level are split between disk and the tail.
    for (const [from, to] of [[0, 1], [1, 777], [777, 2_048], [2_048, 3_001]]) {
      appendTo(store, tree, from!, to!);
      await store.flush();
    }
    appendTo(store, tree, 3_001, 3_500); // not committed yet: read from the tail
    expect(hex(tree.root(3_500))).toBe(hex(inMemory.root(3_500)));
    expect(hexes(tree.inclusionProof(2_999, 3_500))).toEqual(hexes(inMemory.inclusionProof(2_999, 3_500)));
    await store.close();

    const reopened = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    expect(reopened.size).toBe(3_500);
    expect(reopened.lastLeafPosition).toBe(leafNumber(3_499).position);
    const again = treeOver(reopened);
    appendTo(reopened, again, 3_500, count);
    for (const size of [1, 2, 3, 1_024, 3_001, 3_500, count]) expect(hex(again.root(size))).toBe(hex(inMemory.root(size)));
    for (const [index, size] of [[0, count], [3_499, count], [4_999, count], [777, 2_049]]) expect(hexes(again.inclusionProof(index!, size))).toEqual(hexes(inMemory.inclusionProof(index!, size)));
    expect(hexes(again.consistencyProof(3_001, count))).toEqual(hexes(inMemory.consistencyProof(3_001, count)));
    for (const i of [0, 5, 2_047, 3_499, 4_999]) {
      expect(reopened.find(digest(i))).toBe(i);
      expect(reopened.leafAt(i)).toEqual({ ...leafNumber(i), sha256: expect.toSatisfy((d: Uint8Array) => Buffer.from(d).equals(digest(i))) });
    }
    expect(reopened.find(digest(count))).toBeUndefined();
    await reopened.close();
  });

  it('a result signed again finds its first leaf, and after a reset the leaves read back are the new ones, not those read before', async () => {
    const store = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    const tree = treeOver(store);
    appendTo(store, tree, 0, 40);
    await store.flush();
    // The same result again, twice, after its first leaf was committed: each finds leaf 7.
    for (const at of [40, 41]) {
      expect(store.append({ ...leafNumber(7), position: 1_000 + at })).toBe(at);
      expect(store.find(digest(7))).toBe(7);
    }
    expect(store.leafAt(7).position).toBe(leafNumber(7).position);

    await store.reset();
    const other = (i: number): StoredLeaf => ({ position: 10 * i, sha256: digest(500 + i), key: 'attest k3' });
    for (let i = 0; i < 10; i++) store.append(other(i));
    await store.flush();
    expect(store.leafAt(7)).toEqual({ ...other(7), sha256: expect.toSatisfy((d: Uint8Array) => Buffer.from(d).equals(digest(507))) });
    expect(store.find(digest(7))).toBeUndefined();
    await store.close();
  });

  it('keeps the leaves appended while a commit runs, and commits them next', async () => {
    const store = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    const tree = treeOver(store);
    appendTo(store, tree, 0, 100);
    const committing = store.flush();
    appendTo(store, tree, 100, 130);
    await committing;
    expect(store.size).toBe(130);
    expect(store.find(digest(120))).toBe(120);
    const root = hex(tree.root());
    await store.close();
    const reopened = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    expect(reopened.size).toBe(130);
    expect(hex(treeOver(reopened).root())).toBe(root);
    await reopened.close();
  });

  it('commits on its own once the tail is long, every node a leaf completes with it', async () => {
    const store = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    const tree = treeOver(store);
    appendTo(store, tree, 0, 17_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const expected = new MerkleLog();
    for (let i = 0; i < 17_000; i++) expected.appendLeafHash(leafHashOf(leafNumber(i)));
    for (const size of [16_384, 16_999, 17_000]) expect(hex(tree.root(size))).toBe(hex(expected.root(size)));
    expect(hexes(tree.inclusionProof(16_383, 17_000))).toEqual(hexes(expected.inclusionProof(16_383, 17_000)));
    await store.close();
  });

  it('finds a digest at its first leaf, and tells apart digests that share their first 8 bytes', async () => {
    const store = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    const twin = Buffer.from(digest(1));
    twin[31]! ^= 0xff; // same lookup key as digest(1), another digest
    store.append(leafNumber(0));
    store.append(leafNumber(1));
    store.append({ ...leafNumber(1), position: 99 }); // the same result signed again
    await store.flush();
    store.append({ position: 120, sha256: twin, key: 'attest k1' });
    expect(store.find(twin)).toBe(3);
    await store.flush();
    expect(store.find(digest(1))).toBe(1);
    expect(store.find(twin)).toBe(3);
    const third = Buffer.from(twin);
    third[30]! ^= 0xff;
    expect(store.find(third)).toBeUndefined();
    await store.close();
  });

  it('adds at most one entry a digest run for the same result signed again, however often (a list under one key would grow with each)', async () => {
    const store = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message), { digestRunLeaves: 1_024 });
    for (let i = 0; i < 5_000; i++) store.append({ ...leafNumber(7), position: 10 + i });
    await store.flush();
    for (let i = 0; i < 5_000; i++) store.append({ ...leafNumber(7), position: 6_000 + i });
    expect(store.find(digest(7))).toBe(0);
    await store.close();
    const runs = DigestRuns.open(join(dir, 'store', 'digest-runs'), { readOnly: true });
    const listed = [...runs.leavesUnder(digest(7))];
    await runs.close();
    expect(listed[0]).toBe(0);
    // 9 runs of 1,024 leaves were written: one entry in each at most (the first leaf of each run's window).
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.length).toBeLessThanOrEqual(9);
    const reopened = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message), { digestRunLeaves: 1_024 });
    expect(reopened.find(digest(7))).toBe(0);
    await reopened.close();
  });

  it('cuts the records written for a commit that did not happen (a process killed between the two), and goes on after them', async () => {
    const store = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    appendTo(store, treeOver(store), 0, 10);
    await store.close();
    await appendFile(join(dir, 'store', 'leaves'), Buffer.alloc(3 * 48 + 17, 0x33));
    const reopened = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    expect(reopened.size).toBe(10);
    appendTo(reopened, treeOver(reopened), 10, 12);
    await reopened.close();
    const again = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    expect(again.size).toBe(12);
    expect(again.find(digest(11))).toBe(11);
    expect(again.leafAt(10).position).toBe(leafNumber(10).position);
    await again.close();
  });

  it('is emptied, and says why, when its file holds fewer leaves than its size covers', async () => {
    const store = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    appendTo(store, treeOver(store), 0, 10);
    await store.close();
    await truncate(join(dir, 'store', 'leaves'), 5 * 48);
    const reopened = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    expect(reopened.size).toBe(0);
    expect(reopened.emptiedBecause).toMatch(/holds 5 leaves, not the 10 its size covers/);
    expect(reopened.find(digest(3))).toBeUndefined();
    await reopened.close();
  });

  it('finds a damaged leaf out when it reads it, and at open when its digest is not in a run yet (the store is then emptied and folded again)', async () => {
    const store = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message), { digestRunLeaves: 4 });
    appendTo(store, treeOver(store), 0, 10);
    await store.close();
    const damage = async (leaf: number) => {
      const file = await open(join(dir, 'store', 'leaves'), 'r+');
      await file.write(Buffer.from([0xff]), 0, 1, leaf * 48 + 5);
      await file.close();
    };
    await damage(3);
    const reopened = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message), { digestRunLeaves: 4 });
    expect(reopened.leafAt(2).position).toBe(leafNumber(2).position);
    expect(() => reopened.leafAt(3)).toThrow(/leaf 3 of the result log's store is missing or damaged/);
    await reopened.close();
    // Leaves 8 and 9 are beyond the runs (of 4 leaves): a start reads them to list their digests.
    await damage(9);
    const emptied = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message), { digestRunLeaves: 4 });
    expect(emptied.emptiedBecause).toMatch(/leaf 9 of the result log's store is missing or damaged/);
    expect(emptied.size).toBe(0);
    expect(emptied.find(digest(1))).toBeUndefined();
    await emptied.close();
  });

  it.skipIf(!existsSync('/proc/sys/kernel/random/boot_id'))('still knows, once emptied, that this boot has it open: a machine crash after is found out', async () => {
    const store = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    appendTo(store, treeOver(store), 0, 10);
    await store.flush();
    await store.reset();
    const env = openLmdb({ path: join(dir, 'store'), readOnly: true });
    const openedBy = env.openDB<{ closed: boolean }, string>({ name: 'meta' }).get('opened-by');
    await env.close();
    await store.close();
    expect(openedBy).toMatchObject({ closed: false });
  });

  it('empties a store of another format (its leaves are folded again from the event log), the digest table of the formats before 6 included', async () => {
    const store = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    appendTo(store, treeOver(store), 0, 10);
    await store.close();
    const env = openLmdb({ path: join(dir, 'store') });
    env.openDB<{ format: number; leaves: number; lastPosition: number }, string>({ name: 'meta' }).putSync('state', { format: 5, leaves: 10, lastPosition: 29 });
    // The digest lookup as format 5 kept it, in LMDB: dropped with the store's other tables.
    env.openDB<Buffer, Buffer>({ name: 'digests', keyEncoding: 'binary', encoding: 'binary' }).putSync(digest(3).subarray(0, 8), Buffer.from([0, 0, 0, 3]));
    await env.close();
    const reopened = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    expect(reopened.size).toBe(0);
    expect(reopened.lastLeafPosition).toBeUndefined();
    expect(reopened.find(digest(3))).toBeUndefined();
    await reopened.close();
    const after = openLmdb({ path: join(dir, 'store'), readOnly: true });
    const names = [...after.getKeys()].map(String);
    await after.close();
    expect(names).not.toContain('digests');
  });

  it('drops what it has not committed, and takes the same leaves again after, as if they had never come', async () => {
    const store = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    const tree = treeOver(store);
    appendTo(store, tree, 0, 40);
    await store.flush();
    appendTo(store, tree, 40, 70);
    expect(store.uncommitted).toBe(30);
    await store.dropUncommitted();
    expect(store.size).toBe(40);
    expect(store.uncommitted).toBe(0);
    expect(store.lastLeafPosition).toBe(leafNumber(39).position);
    expect(store.find(digest(50))).toBeUndefined();
    expect(store.find(digest(39))).toBe(39);

    const again = treeOver(store);
    appendTo(store, again, 40, 70);
    await store.close();
    const reopened = LeafStore.open(join(dir, 'store'), (err) => expect.fail(err.message));
    const inMemory = new MerkleLog();
    for (let i = 0; i < 70; i++) inMemory.appendLeafHash(leafHashOf(leafNumber(i)));
    expect(reopened.size).toBe(70);
    expect(reopened.find(digest(50))).toBe(50);
    expect(hex(treeOver(reopened).root(70))).toBe(hex(inMemory.root(70)));
    await reopened.close();
  });

  it('in memory (no directory) keeps everything, for tests of the result log', () => {
    const store = LeafStore.inMemory();
    const tree = treeOver(store);
    appendTo(store, tree, 0, 300);
    expect(store.find(digest(299))).toBe(299);
    const expected = new MerkleLog();
    for (let i = 0; i < 300; i++) expected.appendLeafHash(leafHashOf(leafNumber(i)));
    expect(hex(tree.root())).toBe(hex(expected.root()));
  });
});
