import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, truncate, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorruptLogError, DataDirectoryLockedError } from '../../src/events/file-log/errors.ts';
import { WriterCheckpoint, WRITER_CHECKPOINT_FILE } from '../../src/events/file-log/writer-checkpoint.ts';
import { LOCK_FILE_NAME, openFileEventStore } from '../../src/events/file-log/store.ts';
import { EventStoreUnavailableError, type EventStore } from '../../src/events/port.ts';
import { recordingLogger, replaceDatasync, silentLogger } from './helpers.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eventlog-recovery-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function segmentFiles(): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith('.segment')).sort();
}

/** Appends `count` events one append (and so one batch) at a time; returns their ids. */
async function appendEach(store: EventStore, stream: string, count: number, size = 100): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    await store.appendToStream(stream, [{ id, type: 'Noted', data: { i, pad: 'x'.repeat(size) } }]);
    ids.push(id);
  }
  return ids;
}

async function ids(store: EventStore, stream: string): Promise<string[]> {
  return (await store.readStream(stream)).map((e) => e.id);
}

/** The writer checkpoint a crash leaves: the events acknowledged before the batch it tore. */
function crashedWhileWriting(acknowledged: number): void {
  const checkpoint = new WriterCheckpoint(dir);
  writeFileSync(join(dir, WRITER_CHECKPOINT_FILE), '');
  checkpoint.advance(acknowledged);
  checkpoint.close();
}

describe('file event log: reopening', () => {
  it('serves every event again after a restart, across segment files, and continues positions', async () => {
    const first = await openFileEventStore({ dir, log: silentLogger, maxSegmentBytes: 1024 });
    const written = await appendEach(first, 'notes', 30);
    await first.close();
    expect((await segmentFiles()).length).toBeGreaterThan(3);
    for (const file of await segmentFiles()) expect((await stat(join(dir, file))).size).toBeLessThanOrEqual(1024);

    const second = await openFileEventStore({ dir, log: silentLogger, maxSegmentBytes: 1024 });
    expect(await ids(second, 'notes')).toEqual(written);
    const next = await second.appendToStream('notes', [{ id: randomUUID(), type: 'Noted', data: {} }], { expectedRevision: 29n });
    expect(next).toEqual({ nextExpectedRevision: 30n, position: 30n });
    const positions: bigint[] = [];
    for await (const e of second.readAll({ fromPosition: 25n })) positions.push(e.position);
    expect(positions).toEqual([26n, 27n, 28n, 29n, 30n]);
    await second.close();
  });

  it('recognises a replayed append after a restart (idempotency survives the index rebuild)', async () => {
    const first = await openFileEventStore({ dir, log: silentLogger });
    const event = { id: randomUUID(), type: 'Once', data: { n: 1 } };
    await first.appendToStream('once', [event], { expectedRevision: 'no_stream' });
    await first.close();
    const second = await openFileEventStore({ dir, log: silentLogger });
    await second.appendToStream('once', [event], { expectedRevision: 'no_stream' });
    await second.appendToStream('once', [event], { expectedRevision: 'any' });
    expect(await ids(second, 'once')).toEqual([event.id]);
    await second.close();
  });
});

describe('file event log: recovery', () => {
  it('truncates a torn tail (a last batch cut short), logs it, and keeps everything before it', async () => {
    const store = await openFileEventStore({ dir, log: silentLogger });
    const written = await appendEach(store, 'notes', 10);
    await store.close();
    const [segment] = await segmentFiles();
    const path = join(dir, segment!);
    const fullSize = (await stat(path)).size;
    await truncate(path, fullSize - 40); // The last record loses its end, as in a crash mid-write,
    crashedWhileWriting(9); // which was never acknowledged: the writer checkpoint says 9.

    const log = recordingLogger();
    const reopened = await openFileEventStore({ dir, log });
    const warning = log.entries.find((e) => e.level === 'warn');
    expect(warning?.message).toContain('torn tail');
    expect(warning?.fields).toMatchObject({ file: segment });
    const offset = warning!.fields.offset as number;
    expect((await stat(path)).size).toBe(offset);
    expect(await ids(reopened, 'notes')).toEqual(written.slice(0, 9));
    // The log is writable again at the position the torn event had.
    const result = await reopened.appendToStream('notes', [{ id: randomUUID(), type: 'Noted', data: {} }], { expectedRevision: 8n });
    expect(result.position).toBe(9n);
    await reopened.close();
    const again = await openFileEventStore({ dir, log: recordingLogger() });
    expect(await again.readStream('notes')).toHaveLength(10);
    await again.close();
  });

  it('truncates zeros left at the end by a write that never reached the disk', async () => {
    const store = await openFileEventStore({ dir, log: silentLogger });
    const written = await appendEach(store, 'notes', 5);
    await store.close();
    const path = join(dir, (await segmentFiles())[0]!);
    const size = (await stat(path)).size;
    await appendFile(path, Buffer.alloc(700));
    const log = recordingLogger();
    const reopened = await openFileEventStore({ dir, log });
    expect(log.entries.some((e) => e.level === 'warn' && e.fields.offset === size)).toBe(true);
    expect(await ids(reopened, 'notes')).toEqual(written);
    await reopened.close();
  });

  it('with its writer checkpoint unreadable, judges by the index on disk: a cut before what was indexed stops the start, as often as it is tried', async () => {
    const first = await openFileEventStore({ dir, log: silentLogger });
    const written = await appendEach(first, 'notes', 40);
    await first.close();
    const [segment] = await segmentFiles();
    const path = join(dir, segment!);
    const garble = () => writeFile(join(dir, WRITER_CHECKPOINT_FILE), 'garbage, not a checkpoint record\n');

    // Unreadable alone: every acknowledged event is still there, and the start says what it judged by.
    await garble();
    const recorded = recordingLogger();
    const reopened = await openFileEventStore({ dir, log: recorded });
    expect(await ids(reopened, 'notes')).toEqual(written);
    expect(recorded.entries.filter((e) => e.level === 'warn').map((e) => e.message)).toContainEqual(expect.stringMatching(/writer checkpoint is unreadable; judged by the index on disk, which covers 40 events/));
    await reopened.close();

    // Unreadable and the log cut inside acknowledged events: not a torn tail, never cut further.
    await garble();
    const { size } = await stat(path);
    await truncate(path, size - 150);
    for (let attempt = 0; attempt < 2; attempt++) {
      const refused = await openFileEventStore({ dir, log: silentLogger }).then(
        async (store) => (await store.close(), undefined),
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(CorruptLogError);
      expect((refused as Error).message).toMatch(/unreadable, and the index on disk disagrees with the log .*restore the data directory from a backup/i);
    }
    expect((await stat(path)).size).toBe(size - 150);
  });

  it('refuses to start on a flipped bit before the tail, naming the file and offset, and changes nothing', async () => {
    const store = await openFileEventStore({ dir, log: silentLogger });
    const written = await appendEach(store, 'notes', 20);
    await store.close();
    const segment = (await segmentFiles())[0]!;
    const path = join(dir, segment);
    const bytes = await readFile(path);
    const at = bytes.indexOf(written[3]!); // Inside the fourth record's payload.
    bytes[at + 5]! ^= 0x04;
    // A torn tail as well: the damage before it must still win over the repair.
    await writeFile(path, bytes.subarray(0, bytes.length - 30));
    const before = await readFile(path);

    const err = await openFileEventStore({ dir, log: silentLogger }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CorruptLogError);
    const corrupt = err as CorruptLogError;
    expect(corrupt.file).toBe(segment);
    expect(corrupt.offset).toBeLessThan(at);
    expect(corrupt.offset).toBeGreaterThan(at - 120);
    expect(corrupt.message).toContain(segment);
    expect(corrupt.message).toContain(`offset ${corrupt.offset}`);
    expect(corrupt.message).toMatch(/checksum/);
    expect((await readFile(path)).equals(before)).toBe(true);
    // The failed start released the lock: nothing holds the directory.
    expect((await readdir(dir)).includes(LOCK_FILE_NAME)).toBe(false);
  });

  it('refuses a flipped bit in an earlier segment even at that segment’s end', async () => {
    const store = await openFileEventStore({ dir, log: silentLogger, maxSegmentBytes: 600 });
    await appendEach(store, 'notes', 8);
    await store.close();
    const [first] = await segmentFiles();
    const path = join(dir, first!);
    const bytes = await readFile(path);
    bytes[bytes.length - 3]! ^= 0x01;
    await writeFile(path, bytes);
    await expect(openFileEventStore({ dir, log: silentLogger, maxSegmentBytes: 600 })).rejects.toMatchObject({ name: 'CorruptLogError', file: first });
  });

  it('reports damage that appears after start when the record is read, with file and offset', async () => {
    const store = await openFileEventStore({ dir, log: silentLogger });
    const written = await appendEach(store, 'notes', 3);
    const path = join(dir, (await segmentFiles())[0]!);
    const bytes = await readFile(path);
    bytes[bytes.indexOf(written[1]!)]! ^= 0x01;
    await writeFile(path, bytes);
    await expect(store.readStream('notes')).rejects.toBeInstanceOf(CorruptLogError);
    await store.close();
  });
});

describe('file event log: a failed sync', () => {
  it('is never acknowledged: the append, a replay of it and later appends fail with EventStoreUnavailableError until the log recovers by itself, without them', async () => {
    const store = await openFileEventStore({ dir, log: silentLogger, recoveryIntervalMs: 200 });
    const kept = await appendEach(store, 'notes', 2);
    const restore = await replaceDatasync(dir, () => () => Promise.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })));
    try {
      const event = { id: randomUUID(), type: 'Noted', data: {} };
      const append = store.appendToStream('notes', [event], { expectedRevision: 1n });
      const replay = store.appendToStream('notes', [event], { expectedRevision: 1n });
      await expect(append).rejects.toBeInstanceOf(EventStoreUnavailableError);
      await expect(replay).rejects.toBeInstanceOf(EventStoreUnavailableError);
    } finally {
      restore();
    }
    await expect(store.appendToStream('other', [{ id: randomUUID(), type: 'Noted', data: {} }])).rejects.toThrow(/refused until the log recovers/);
    expect(store.readiness?.()).toMatchObject({ ready: false });
    expect((await ids(store, 'notes')).slice(0, 2)).toEqual(kept);
    // The disk works again: without a restart, appends are taken once more.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(store.readiness?.()).toEqual({ ready: true });
    const after = { id: randomUUID(), type: 'Noted', data: {} };
    const appended = await store.appendToStream('other', [after]);
    expect(await ids(store, 'other')).toEqual([after.id]);
    // The refused append was written whole before its sync failed, and its caller was told it
    // failed: it is not in the log (the in-process recovery cut it), and its position is taken
    // by the next append, so a subscriber, which never saw it, misses nothing.
    expect(await ids(store, 'notes')).toEqual(kept);
    expect(appended.position).toBe(2n);
    await store.close();
  });
});

describe('file event log: one writer per directory', () => {
  it('refuses a second writer while the first is open, and allows one after it closed', async () => {
    const first = await openFileEventStore({ dir, log: silentLogger });
    await expect(openFileEventStore({ dir, log: silentLogger })).rejects.toBeInstanceOf(DataDirectoryLockedError);
    await first.close();
    const second = await openFileEventStore({ dir, log: silentLogger });
    await second.close();
  });

  it('a second process gets a clear error and exits', async () => {
    const first = await openFileEventStore({ dir, log: silentLogger });
    try {
      const child = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'open-log.ts'), dir], {
        cwd: process.cwd(),
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(child.status).toBe(1);
      expect(child.stderr).toContain(`in use by process ${process.pid}`);
    } finally {
      await first.close();
    }
  });

  it('takes over the lock of a process that no longer runs', async () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const { hostname } = await import('node:os');
    await writeFile(join(dir, LOCK_FILE_NAME), JSON.stringify({ pid: Number(gone.stdout), host: hostname(), token: 'old' }));
    const log = recordingLogger();
    const store = await openFileEventStore({ dir, log });
    expect(log.entries.some((e) => e.level === 'warn' && e.message.includes('taking over'))).toBe(true);
    await store.close();
  });

  it('a read-only open needs no lock, sees what was durable, and refuses appends', async () => {
    const writer = await openFileEventStore({ dir, log: silentLogger });
    const written = await appendEach(writer, 'notes', 4);
    const reader = await openFileEventStore({ dir, log: silentLogger, readOnly: true });
    expect(await ids(reader, 'notes')).toEqual(written);
    await expect(reader.appendToStream('notes', [{ id: randomUUID(), type: 'X', data: {} }])).rejects.toBeInstanceOf(EventStoreUnavailableError);
    await reader.close();
    await writer.close();
  });
});
