import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DigestRuns, type DigestEntry } from './digest-runs.ts';

/** Digests of a few kinds: most distinct, some repeated, some sharing their first 8 bytes with another. */
function digestOf(leaf: number): Buffer {
  const kind = leaf % 10;
  if (kind === 0) return createHash('sha256').update('the same result').digest();
  const digest = createHash('sha256').update(`result ${kind === 1 ? leaf - 1 : leaf}`).digest();
  if (kind === 1) digest[31]! ^= 0xff; // the prefix of leaf - 1's digest, another digest
  return digest;
}

/** What a lookup must give: the leaves listed under the prefix, in order (here: every leaf, none skipped). */
function expectedUnder(prefix: Buffer, leaves: number): number[] {
  const out: number[] = [];
  for (let leaf = 0; leaf < leaves; leaf++) if (digestOf(leaf).subarray(0, 8).equals(prefix.subarray(0, 8))) out.push(leaf);
  return out;
}

function addLeaves(runs: DigestRuns, from: number, to: number): void {
  const entries: DigestEntry[] = [];
  for (let leaf = from; leaf < to; leaf++) entries.push({ digest: digestOf(leaf), leaf });
  runs.add(from, to, entries);
}

/** Runs opened for writing in `dir`, with leaves 0 to 299 in three runs of 100. */
function threeRunsOf100(dir: string): DigestRuns {
  const runs = DigestRuns.open(dir, { readOnly: false, runLeaves: 100 });
  for (let from = 0; from < 300; from += 100) addLeaves(runs, from, from + 100);
  return runs;
}

describe('the digest runs of the result log', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'digest-runs-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('lists every leaf under a prefix, in order, across runs and the merges of four into one, and again after a reopen', async () => {
    // Merges read and write 300 entries at a time: most entries are merged across a chunk's end.
    const runs = DigestRuns.open(dir, { readOnly: false, runLeaves: 700, chunkEntries: 300 });
    const leaves = 700 * 21; // 21 runs: merged into one of 11,200, one of 2,800 and one of 700
    for (let from = 0; from < leaves; from += 700) {
      addLeaves(runs, from, from + 700);
      await runs.settled();
    }
    expect(runs.indexedTo).toBe(leaves);
    expect(readdirSync(dir).sort()).toEqual(['run-000000000000-000000011200', 'run-000000011200-000000014000', 'run-000000014000-000000014700']);
    const probes = [0, 1, 2, 3, 699, 700, 5_555, 11_199, 11_200, 14_699].map(digestOf);
    for (const probe of probes) expect([...runs.leavesUnder(probe)]).toEqual(expectedUnder(probe, leaves));
    // Leaf 0's digest is every tenth leaf's: its list is long, and spans every run.
    expect([...runs.leavesUnder(digestOf(0))]).toHaveLength(leaves / 10);
    expect([...runs.leavesUnder(createHash('sha256').update('absent').digest())]).toEqual([]);
    await runs.close();

    const reopened = DigestRuns.open(dir, { readOnly: true });
    expect(reopened.indexedTo).toBe(leaves);
    for (const probe of probes) expect([...reopened.leavesUnder(probe)]).toEqual(expectedUnder(probe, leaves));
    await reopened.close();
  });

  it('merges in chunks of any size (here 7 entries), no run left beside three of its size', async () => {
    const runs = DigestRuns.open(dir, { readOnly: false, runLeaves: 4, chunkEntries: 7 });
    for (let from = 0; from < 4 ** 5 + 4 ** 3 + 4; from += 4) addLeaves(runs, from, from + 4);
    await runs.settled();
    expect(runs.ranges).toEqual([
      { from: 0, to: 4 ** 5 },
      { from: 4 ** 5, to: 4 ** 5 + 4 ** 3 },
      { from: 4 ** 5 + 4 ** 3, to: 4 ** 5 + 4 ** 3 + 4 },
    ]);
    await runs.close();
  });

  it('reads a run back for an audit, a chunk at a time: every leaf once, under its own digest, in order', async () => {
    const runs = DigestRuns.open(dir, { readOnly: false, runLeaves: 700, chunkEntries: 300 });
    for (let from = 0; from < 2_800; from += 700) addLeaves(runs, from, from + 700);
    await runs.settled();
    const entries = [...runs.entriesOf(0)];
    expect(entries.map((e) => e.leaf).sort((a, b) => a - b)).toEqual(Array.from({ length: 2_800 }, (_, leaf) => leaf));
    for (const { high, low, leaf } of entries) expect([high, low]).toEqual([digestOf(leaf).readUInt32BE(0), digestOf(leaf).readUInt32BE(4)]);
    expect(() => [...runs.entriesOf(700)]).toThrow('no digest run starts at leaf 700');
    await runs.close();
  });

  it('merges, in the end, runs written faster than they are merged (a store folded again at a start), the oldest first', async () => {
    const runs = DigestRuns.open(dir, { readOnly: false, runLeaves: 700 });
    for (let from = 0; from < 700 * 21; from += 700) addLeaves(runs, from, from + 700);
    expect(readdirSync(dir).length).toBeGreaterThan(3);
    await runs.settled();
    expect(readdirSync(dir).sort()).toEqual(['run-000000000000-000000011200', 'run-000000011200-000000014000', 'run-000000014000-000000014700']);
    expect([...runs.leavesUnder(digestOf(3))]).toEqual(expectedUnder(digestOf(3), 700 * 21));
    await runs.close();
  });

  it('keeps, at open, the runs that tile the leaves from 0, and removes what a merge or a write left half done', async () => {
    const runs = threeRunsOf100(dir);
    await runs.close();
    // As if a merge of runs 0-99 and 100-199 had been written and the process stopped before it removed them.
    const merged = DigestRuns.open(join(dir, 'scratch'), { readOnly: false, runLeaves: 200 });
    addLeaves(merged, 0, 200);
    await merged.close();
    copyFileSync(join(dir, 'scratch', 'run-000000000000-000000000200'), join(dir, 'run-000000000000-000000000200'));
    await rm(join(dir, 'scratch'), { recursive: true });
    writeFileSync(join(dir, 'run-000000000300-000000000400.tmp'), 'half a run');
    writeFileSync(join(dir, 'run-000000000500-000000000600'), 'a run after a gap');
    writeFileSync(join(dir, 'run-000000000300-000000000400'), 'not a run');

    const reopened = DigestRuns.open(dir, { readOnly: false, runLeaves: 100 });
    expect(readdirSync(dir).sort()).toEqual(['run-000000000000-000000000200', 'run-000000000200-000000000300']);
    expect(reopened.indexedTo).toBe(300);
    expect([...reopened.leavesUnder(digestOf(150))]).toEqual(expectedUnder(digestOf(150), 300));
    await reopened.close();
  });

  it('opens for a reader beside the writer even when a run it listed is gone by the time it opens it (a merge removed it)', async () => {
    const runs = threeRunsOf100(dir);
    await runs.close();
    // A name that readdir lists and open cannot find: what a reader meets when a merge removes a run between the two.
    await rm(join(dir, 'run-000000000100-000000000200'));
    symlinkSync(join(dir, 'gone'), join(dir, 'run-000000000100-000000000200'));
    const reader = DigestRuns.open(dir, { readOnly: true });
    expect(reader.indexedTo).toBe(100);
    expect([...reader.leavesUnder(digestOf(50))]).toEqual(expectedUnder(digestOf(50), 100));
    await reader.close();
  });

  it('serves a reader beside the writer the runs it opened, after a merge has removed them', async () => {
    const runs = threeRunsOf100(dir);
    const reader = DigestRuns.open(dir, { readOnly: true, chunkEntries: 64 });
    addLeaves(runs, 300, 400);
    await runs.settled();
    expect(readdirSync(dir)).toEqual(['run-000000000000-000000000400']);
    // The reader still holds the three runs it opened, their files removed: it reads them whole, as an audit does.
    expect(reader.ranges).toEqual([0, 100, 200].map((from) => ({ from, to: from + 100 })));
    expect([...reader.leavesUnder(digestOf(250))]).toEqual(expectedUnder(digestOf(250), 300));
    expect([...reader.entriesOf(200)].map((e) => e.leaf).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => 200 + i));
    await reader.close();
    await runs.close();
  });

  it('leaves the runs as they were when a merge fails, and tries it again only once another run is added', async () => {
    const runs = threeRunsOf100(dir);
    // Something in the way of the merged run's temporary file: its write fails, as on a full disk.
    mkdirSync(join(dir, 'run-000000000000-000000000400.tmp'));
    addLeaves(runs, 300, 400); // the fourth run of 100: a merge begins
    await runs.settled();
    expect(readdirSync(dir).filter((name) => !name.endsWith('.tmp')).length).toBe(4);
    expect([...runs.leavesUnder(digestOf(250))]).toEqual(expectedUnder(digestOf(250), 400));
    await rm(join(dir, 'run-000000000000-000000000400.tmp'), { recursive: true });
    addLeaves(runs, 400, 500);
    await runs.settled();
    expect(readdirSync(dir).sort()).toEqual(['run-000000000000-000000000400', 'run-000000000400-000000000500']);
    await runs.close();
  });

  it('drops the runs beyond a cut, refuses a run that does not follow the last, and discards a merge overtaken by a clear', async () => {
    const runs = threeRunsOf100(dir);
    runs.cutTo(250);
    expect(runs.indexedTo).toBe(200);
    expect(() => addLeaves(runs, 300, 400)).toThrow(/does not follow the runs, which end at 200/);
    addLeaves(runs, 200, 300);
    addLeaves(runs, 300, 400); // the fourth run of 100: a merge begins
    runs.clear();
    await runs.settled();
    expect(runs.indexedTo).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
    await runs.close();
  });
});
