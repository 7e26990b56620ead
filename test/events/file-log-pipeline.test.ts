import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorruptLogError } from '../../src/events/file-log/errors.ts';
import { WRITER_CHECKPOINT_FILE } from '../../src/events/file-log/writer-checkpoint.ts';
import { openFileEventStore } from '../../src/events/file-log/store.ts';
import type { EventData, EventStore } from '../../src/events/port.ts';
import { recordingLogger, replaceDatasync, silentLogger } from './helpers.ts';

/**
 * The file log keeps two group commits in flight: the next batch is written while the previous
 * one syncs. These tests hold a sync back by hand to see what callers, readers and recovery get
 * while a later batch is on its way to the disk ahead of an earlier one.
 */
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eventlog-pipeline-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An event large enough (about 40 KB) that its batch is written at once, without waiting for the turn to end. */
function largeEvent(label: string): EventData {
  return { id: randomUUID(), type: 'Noted', data: { label, pad: 'x'.repeat(40_000) } };
}

/**
 * Makes the next fdatasync of any file handle wait until `release` is called; later ones run as
 * usual. `restore` puts the real method back.
 */
async function holdNextSync(): Promise<{ release(): void; restore(): void; isHeld(): boolean }> {
  let releaseHeld: (() => void) | undefined;
  let held = false;
  let used = false;
  const restore = await replaceDatasync(dir, (original) =>
    function (this: unknown) {
      if (used) return original.call(this);
      used = true;
      held = true;
      return new Promise<void>((resolve) => {
        releaseHeld = resolve;
      }).then(() => original.call(this));
    },
  );
  return {
    release: () => {
      held = false;
      releaseHeld?.();
    },
    restore,
    isHeld: () => held,
  };
}

const settledIn = async (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function theSegment(): Promise<string> {
  const [segment] = (await readdir(dir)).filter((name) => name.endsWith('.segment'));
  return join(dir, segment!);
}

async function ids(store: EventStore, stream: string): Promise<string[]> {
  return (await store.readStream(stream)).map((e) => e.id);
}

describe('file event log: pipelined group commit', () => {
  it('acknowledges a batch only after every earlier batch is synced, and writes no third batch meanwhile', async () => {
    const store = await openFileEventStore({ dir, log: silentLogger });
    const sync = await holdNextSync();
    try {
      const acknowledged: string[] = [];
      const first = store.appendToStream('a', [largeEvent('first')]).then(() => acknowledged.push('first'));
      const second = store.appendToStream('b', [largeEvent('second')]).then(() => acknowledged.push('second'));
      // The second batch is written and synced while the first one's sync is held back.
      await settledIn(100);
      expect(sync.isHeld()).toBe(true);
      const sizeWithTwoBatches = (await stat(await theSegment())).size;
      expect(sizeWithTwoBatches).toBeGreaterThan(80_000);
      expect(acknowledged).toEqual([]);
      // Not durable, so not readable either.
      expect(await ids(store, 'b')).toEqual([]);
      // A third batch waits until the first is synced: a crash can tear at most the last two.
      const third = store.appendToStream('c', [largeEvent('third')]).then(() => acknowledged.push('third'));
      await settledIn(50);
      expect((await stat(await theSegment())).size).toBe(sizeWithTwoBatches);

      sync.release();
      await Promise.all([first, second, third]);
      expect(acknowledged).toEqual(['first', 'second', 'third']);
      expect((await ids(store, 'b')).length).toBe(1);
    } finally {
      sync.restore();
      await store.close();
    }
  });

  it.each([
    ['its records', 20_000],
    ['its batch header', 0],
  ])('after a crash that tore a batch (%s) while the pipelined batch after it reached the disk, drops both and keeps every acknowledged event', async (_, damageAt) => {
    const store = await openFileEventStore({ dir, log: silentLogger });
    const kept: string[] = [];
    for (let i = 0; i < 3; i++) {
      const event = { id: randomUUID(), type: 'Noted', data: { i } };
      await store.appendToStream('notes', [event]);
      kept.push(event.id);
    }
    const path = await theSegment();
    const tornAt = (await stat(path)).size;
    const sync = await holdNextSync();
    let crashImage: Buffer;
    let checkpointImage: Buffer;
    try {
      const first = store.appendToStream('notes', [largeEvent('torn')]);
      const second = store.appendToStream('other', [largeEvent('pipelined')]);
      await settledIn(100);
      // What the disk holds if the machine stops now: both batches were written, the second
      // synced, but part of the first never left the page cache.
      crashImage = await readFile(path);
      crashImage.fill(0, tornAt + damageAt, tornAt + damageAt + 4096);
      // And the writer checkpoint as it stood: the two batches were never acknowledged.
      checkpointImage = await readFile(join(dir, WRITER_CHECKPOINT_FILE));
      sync.release();
      await Promise.all([first, second]);
    } finally {
      sync.restore();
    }
    await store.close();
    await writeFile(path, crashImage);
    await writeFile(join(dir, WRITER_CHECKPOINT_FILE), checkpointImage!);

    const log = recordingLogger();
    const reopened = await openFileEventStore({ dir, log });
    const warning = log.entries.find((e) => e.level === 'warn');
    expect(warning?.message).toContain('torn tail');
    expect(warning?.fields.offset).toBe(tornAt);
    expect(await ids(reopened, 'notes')).toEqual(kept);
    expect(await ids(reopened, 'other')).toEqual([]);
    const next = await reopened.appendToStream('notes', [{ id: randomUUID(), type: 'Noted', data: {} }], { expectedRevision: 2n });
    expect(next.position).toBe(3n);
    await reopened.close();
  });

  it('refuses to start on damage in a batch that a later, non-pipelined batch follows: that batch was synced', async () => {
    const store = await openFileEventStore({ dir, log: silentLogger });
    const offsets: number[] = [];
    const path = await theSegment();
    for (let i = 0; i < 3; i++) {
      offsets.push((await stat(path)).size);
      await store.appendToStream('notes', [{ id: randomUUID(), type: 'Noted', data: { i, pad: 'x'.repeat(500) } }]);
    }
    await store.close();
    const bytes = await readFile(path);
    // The last but one batch: a tear there is possible only when the last batch is pipelined.
    bytes.fill(0, offsets[1]! + 100, offsets[1]! + 200);
    await writeFile(path, bytes);
    const err = await openFileEventStore({ dir, log: silentLogger }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CorruptLogError);
    expect((err as CorruptLogError).offset).toBe(offsets[1]! + 13);
  });
});
