import { spawn } from 'node:child_process';
import { mkdtemp, rm, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { open as openLmdb } from 'lmdb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IndexCheckpointer } from '../../src/events/file-log/index-checkpointer.ts';
import { INDEX_DIRECTORY, PersistedIndex } from '../../src/events/file-log/lmdb-index.ts';
import { LogIndex } from '../../src/events/file-log/log-index.ts';
import { readWriterCheckpoint, writeWriterCheckpoint } from '../../src/events/file-log/writer-checkpoint.ts';
import { openFileEventStore } from '../../src/events/file-log/store.ts';
import { WrongExpectedRevisionError, type EventData, type EventStore } from '../../src/events/port.ts';
import { recordingLogger, silentLogger, type LogEntry } from './helpers.ts';

const WRITER = join(import.meta.dirname, 'fixtures', 'index-writer.ts');
const STREAMS = 7;
const idOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'eventlog-index-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Appends `count` events in a child process, reads the index checkpoint it reached, and kills it with SIGKILL. */
async function appendThenCrash(count: number): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir, String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<unknown>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => line === 'appended' && resolve());
    void exited.then(() => reject(new Error(`writer exited early: ${stderr}`)));
  });
  // As an auditor would: the index read-only, beside its writer (whose commits may lag a moment).
  const checkpointed = await checkpointReaching(1_000);
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return checkpointed;
}

/**
 * The events the index checkpoint of the log in `dir` covers (read as an auditor would), once
 * it covers at least `events`, or what it covers after 10 s: the caller's assertion judges it.
 */
async function checkpointReaching(events: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const index = PersistedIndex.open(join(dir, INDEX_DIRECTORY), { readOnly: true });
    const covered = index?.checkpoint().events ?? 0;
    await index?.close();
    if (covered >= events || Date.now() - started >= 10_000) return covered;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Appends `count` notes over STREAMS streams (ids idOf(0..count-1)) to `store`. */
async function appendNotes(store: EventStore, count: number, idBase = 0): Promise<void> {
  for (let i = 0; i < count; i++) await store.appendToStream(`notes-${i % STREAMS}`, [{ id: idOf(i + idBase), type: 'Noted', data: { i } }]);
}

/** A log of `count` notes, written and closed cleanly (checkpoints every 100 events). */
async function writeNotes(count: number): Promise<void> {
  const store = await openFileEventStore({ dir, log: silentLogger, indexCheckpointEvents: 100 });
  await appendNotes(store, count);
  await store.close();
}

function openedLine(entries: LogEntry[]): Record<string, unknown> {
  return entries.find((e) => e.message === 'event log opened')!.fields;
}

/** Every stream read whole, and the whole log read in order, hold exactly the events appended. */
async function expectAllEvents(store: EventStore, count: number): Promise<void> {
  for (let s = 0; s < STREAMS; s++) {
    const events = await store.readStream(`notes-${s}`);
    const expected = Array.from({ length: count }, (_, i) => i).filter((i) => i % STREAMS === s);
    expect(events.map((e) => e.id)).toEqual(expected.map(idOf));
    expect(events.map((e) => Number(e.revision))).toEqual(expected.map((_, r) => r));
  }
  const positions: number[] = [];
  for await (const event of store.readAll()) {
    expect(event.id).toBe(idOf(Number(event.position)));
    positions.push(Number(event.position));
  }
  expect(positions).toEqual(Array.from({ length: count }, (_, i) => i));
}

describe('file event log: the index on disk', () => {
  it.each(['checkpoint', 'all'] as const)('a restart after N appends and a crash reads at most the events after the last index checkpoint (verify: %s)', async (verify) => {
    const count = 1_500;
    const checkpointed = await appendThenCrash(count);
    expect(checkpointed).toBeGreaterThanOrEqual(1_000);

    const log = recordingLogger();
    const store = await openFileEventStore({ dir, log, verify, maxSegmentBytes: 64 * 1024 });
    const opened = openedLine(log.entries);
    expect(opened.events).toBe(count);
    expect(opened.replayedEvents).toBeLessThanOrEqual(count - checkpointed);
    // The crash left the lock behind; nothing else is worth a warning.
    expect(log.entries.filter((e) => e.level !== 'info').map((e) => e.message)).toEqual(['event log: taking over a lock left by a process that is no longer running']);
    await expectAllEvents(store, count);

    // Appends continue at the right revisions, and replays of events on either side of the checkpoint are recognised.
    const again = { id: idOf(3), type: 'Noted', data: { i: 3, pad: 'x'.repeat(150) } };
    const replay = await store.appendToStream('notes-3', [again], { expectedRevision: 'any' });
    expect(replay.position).toBe(3n);
    const latest = { id: idOf(count - 1), type: 'Noted', data: {} };
    expect((await store.appendToStream(`notes-${(count - 1) % STREAMS}`, [latest])).position).toBe(BigInt(count - 1));
    const next = await store.appendToStream('notes-0', [{ id: idOf(count), type: 'Noted', data: {} }], { expectedRevision: BigInt(Math.ceil(count / STREAMS) - 1) });
    expect(next.position).toBe(BigInt(count));
    await store.close();
  });

  it('a clean close checkpoints everything: the next start replays nothing', async () => {
    await writeNotes(250);
    const log = recordingLogger();
    const second = await openFileEventStore({ dir, log, verify: 'checkpoint' });
    expect(openedLine(log.entries)).toMatchObject({ events: 250, replayedEvents: 0 });
    await expectAllEvents(second, 250);
    await second.close();
  });

  it('any window of a stream, forwards or backwards, reads the same events as the whole stream, across chunks of the index on disk and into the tail held in memory', async () => {
    // notes-0 gets revisions 0..214: the index on disk holds its first chunks, the tail the rest.
    const store = await openFileEventStore({ dir, log: silentLogger, indexCheckpointEvents: 100 });
    await appendNotes(store, 1_000);
    await store.close();
    const reopened = await openFileEventStore({ dir, log: silentLogger, indexCheckpointEvents: 100_000 });
    await appendNotes(reopened, 500, 1_000);
    const whole = (await reopened.readStream('notes-0')).map((e) => e.id);
    expect(whole).toHaveLength(215);
    for (const from of [0, 1, 63, 64, 100, 127, 142, 143, 200, 214]) {
      for (const maxCount of [1, 2, 64, 65, 130, 1_000]) {
        const forwards = await reopened.readStream('notes-0', { fromRevision: BigInt(from), maxCount });
        expect(forwards.map((e) => e.id)).toEqual(whole.slice(from, from + maxCount));
        expect(forwards.map((e) => Number(e.revision))).toEqual(whole.slice(from, from + maxCount).map((_, i) => from + i));
        const backwards = await reopened.readStream('notes-0', { direction: 'backwards', fromRevision: BigInt(from), maxCount });
        expect(backwards.map((e) => e.id)).toEqual(whole.slice(Math.max(0, from - maxCount + 1), from + 1).reverse());
      }
    }
    expect(await reopened.readStream('notes-0', { fromRevision: 215n })).toEqual([]);
    await reopened.close();
  });

  it('an index deleted, or left from another log, is rebuilt from the log and says so', async () => {
    await writeNotes(120);
    await rm(join(dir, INDEX_DIRECTORY), { recursive: true });
    const rebuilt = await openFileEventStore({ dir, log: silentLogger });
    await expectAllEvents(rebuilt, 120);
    await rebuilt.close();

    // Another log of the same length under this index: its last event has another id.
    const other = await mkdtemp(join(tmpdir(), 'eventlog-other-'));
    try {
      const store = await openFileEventStore({ dir: other, log: silentLogger });
      await appendNotes(store, 120, 10_000);
      await store.close();
      await rm(join(other, INDEX_DIRECTORY), { recursive: true });
      const { cp } = await import('node:fs/promises');
      await cp(join(dir, INDEX_DIRECTORY), join(other, INDEX_DIRECTORY), { recursive: true });
      const log = recordingLogger();
      const swapped = await openFileEventStore({ dir: other, log, verify: 'checkpoint' });
      expect(log.entries.find((e) => e.level === 'warn')?.message).toMatch(/event index did not match the log .*rebuilt it from the log/);
      expect(openedLine(log.entries).replayedEvents).toBe(120);
      expect((await swapped.readStream('notes-0')).map((e) => e.id)[0]).toBe(idOf(10_000));
      await swapped.close();
    } finally {
      await rm(other, { recursive: true, force: true });
    }
    expect((await readdir(dir)).includes(INDEX_DIRECTORY)).toBe(true);
  });

  it('an index whose file is damaged (LMDB would end the process on it) is rebuilt by the writer and passed over by a reader, each saying so', async () => {
    await writeNotes(90);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(dir, INDEX_DIRECTORY, 'data.mdb'), Buffer.alloc(64 * 1024, 0x5a));
    const readerLog = recordingLogger();
    const reader = await openFileEventStore({ dir, log: readerLog, readOnly: true });
    await expectAllEvents(reader, 90);
    await reader.close();
    expect(readerLog.entries.find((e) => e.level === 'warn')?.message).toMatch(/event index cannot be opened: reading the log without it/);

    const log = recordingLogger();
    const rebuilt = await openFileEventStore({ dir, log });
    expect(log.entries.find((e) => e.level === 'warn')?.message).toMatch(/event index cannot be opened: rebuilding it from the log/);
    await expectAllEvents(rebuilt, 90);
    await rebuilt.close();
  });

  it('an append replayed after its stream went to the index on disk is recognised, in a short stream and a long one', async () => {
    const note = (i: number): EventData => ({ id: idOf(i), type: 'Noted', data: { i } });
    const first = await openFileEventStore({ dir, log: silentLogger });
    const short = await first.appendToStream('short', [note(0), note(1), note(2)], { expectedRevision: 'no_stream' });
    const long: bigint[] = [];
    for (let i = 0; i < 20; i++) long.push((await first.appendToStream('long', [note(100 + i)], { expectedRevision: i === 0 ? 'no_stream' : BigInt(i - 1) })).position);
    await first.close();

    // A clean close checkpoints everything: every lookup below goes to the index on disk.
    const store = await openFileEventStore({ dir, log: silentLogger, verify: 'checkpoint' });
    expect(await store.appendToStream('short', [note(0), note(1), note(2)], { expectedRevision: 'no_stream' })).toEqual(short);
    expect(await store.appendToStream('short', [note(1), note(2)], { expectedRevision: 0n })).toEqual(short);
    await expect(store.appendToStream('short', [note(1)], { expectedRevision: 1n })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    // Revisions 0-7 are found by reading the stream's ids (kept after the first read), revision 15 through the ids table.
    expect((await store.appendToStream('long', [note(103)], { expectedRevision: 2n })).position).toBe(long[3]);
    for (const revision of [0, 7, 3]) expect((await store.appendToStream('long', [note(100 + revision)], { expectedRevision: 'any' })).position).toBe(long[revision]);
    await expect(store.appendToStream('long', [note(100)], { expectedRevision: 18n })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect((await store.appendToStream('long', [note(115)], { expectedRevision: 'any' })).position).toBe(long[15]);
    await expect(store.appendToStream('long', [note(115)], { expectedRevision: 17n })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect((await store.readStream('short')).map((e) => e.id)).toEqual([0, 1, 2].map(idOf));
    expect(await store.readStream('long')).toHaveLength(20);
    await store.close();
  });

  it('the first ids of long streams, kept in memory for the replay check, answer right for more streams than are kept', async () => {
    // More long streams than the index keeps the first ids of (1,024): the first ones asked about are dropped, then read again.
    const streams = 1_100;
    const first = await openFileEventStore({ dir, log: silentLogger });
    const positions = await Promise.all(
      Array.from({ length: streams }, (_, s) =>
        first.appendToStream(`long-${s}`, Array.from({ length: 9 }, (_, r) => ({ id: idOf(s * 10 + r), type: 'Noted', data: { r } })), { expectedRevision: 'no_stream' }),
      ),
    );
    await first.close();
    const store = await openFileEventStore({ dir, log: silentLogger, verify: 'checkpoint' });
    for (const pass of [0, 1])
      for (let s = 0; s < streams; s += pass === 0 ? 1 : 99) {
        // A fresh id is no replay: the append goes through at the stream's end.
        if (pass === 0) expect((await store.appendToStream(`long-${s}`, [{ id: idOf(9_000_000 + s), type: 'Noted', data: {} }], { expectedRevision: 8n })).nextExpectedRevision).toBe(9n);
        // An append of revision 2 again is recognised as the one already there, by its id
        // (expected revision "any": the first ids are asked) and by its place.
        const replay = await store.appendToStream(`long-${s}`, [{ id: idOf(s * 10 + 2), type: 'Noted', data: { r: 2 } }], { expectedRevision: 'any' });
        expect(replay.position).toBe(positions[s]!.position - 6n);
        expect((await store.appendToStream(`long-${s}`, [{ id: idOf(s * 10 + 2), type: 'Noted', data: { r: 2 } }], { expectedRevision: 1n })).position).toBe(replay.position);
      }
    await expect(store.appendToStream('long-0', [{ id: idOf(4), type: 'Noted', data: { r: 4 } }], { expectedRevision: 8n })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await store.close();
  });

  it('an index of another format is emptied before it is rebuilt: none of its entries is read as this format', async () => {
    await writeNotes(120);
    // What a version with another layout leaves: a checkpoint this version does not read, and entries.
    const env = openLmdb({ path: join(dir, INDEX_DIRECTORY), maxDbs: 4, compression: false });
    const meta = env.openDB<{ format: number }, string>({ name: 'meta' });
    await meta.put('checkpoint', { ...meta.get('checkpoint')!, format: 1 });
    await env.openDB({ name: 'streams' }).put(['a-stream-of-the-old-index', 0], [5]);
    await env.close();

    const log = recordingLogger();
    const store = await openFileEventStore({ dir, log, verify: 'checkpoint' });
    expect(log.entries.find((e) => e.level === 'warn')?.message).toMatch(/holds entries no checkpoint covers.*rebuilt it from the log/);
    await expectAllEvents(store, 120);
    expect(await store.readStream('a-stream-of-the-old-index')).toEqual([]);
    await store.close();
    const after = openLmdb({ path: join(dir, INDEX_DIRECTORY), maxDbs: 4, compression: false, readOnly: true });
    expect(after.openDB({ name: 'streams' }).get(['a-stream-of-the-old-index', 0])).toBeUndefined();
    await after.close();
  });

  it('an index left open by an earlier boot of the machine (its commits are not synced) is rebuilt; one closed cleanly is kept', async () => {
    await writeNotes(150);
    const kept = recordingLogger();
    const second = await openFileEventStore({ dir, log: kept, verify: 'checkpoint' });
    expect(openedLine(kept.entries).replayedEvents).toBe(0);
    await second.close();

    // What a machine crash leaves: the index marked open, by a boot that is not this one.
    const env = openLmdb({ path: join(dir, INDEX_DIRECTORY), maxDbs: 4, compression: false });
    await env.openDB({ name: 'meta' }).put('opened-by', { bootId: 'an-earlier-boot', closed: false });
    await env.close();
    const log = recordingLogger();
    const third = await openFileEventStore({ dir, log, verify: 'checkpoint' });
    expect(log.entries.find((e) => e.level === 'warn')?.message).toMatch(/it was open when the machine stopped.*rebuilt it from the log/);
    expect(openedLine(log.entries).replayedEvents).toBe(150);
    await expectAllEvents(third, 150);
    await third.close();
  });

  it('a read-only open uses the index without writing it, and reads a log that has none', async () => {
    const writer = await openFileEventStore({ dir, log: silentLogger, indexCheckpointEvents: 100 });
    await appendNotes(writer, 300);
    // Checkpoints commit on LMDB's own thread, a moment after the appends: the reader waits for one.
    const checkpointed = await checkpointReaching(200);
    expect(checkpointed).toBeGreaterThanOrEqual(200);
    const log = recordingLogger();
    const reader = await openFileEventStore({ dir, log, readOnly: true });
    expect(log.entries.filter((e) => e.level !== 'info')).toEqual([]);
    expect(openedLine(log.entries).replayedEvents).toBeLessThanOrEqual(300 - checkpointed);
    await expectAllEvents(reader, 300);
    await reader.close();
    await writer.close();
    await rm(join(dir, INDEX_DIRECTORY), { recursive: true });
    const withoutIndex = await openFileEventStore({ dir, log: silentLogger, readOnly: true });
    await expectAllEvents(withoutIndex, 300);
    await withoutIndex.close();
    expect((await readdir(dir)).includes(INDEX_DIRECTORY)).toBe(false);
  });

  it('the index checkpointer never writes beyond what the writer checkpoint has written', async () => {
    const persisted = PersistedIndex.open(join(dir, INDEX_DIRECTORY), { readOnly: false })!;
    const index = new LogIndex(persisted);
    index.reserve('notes-0', [{ id: idOf(0) }, { id: idOf(1) }, { id: idOf(2) }]);
    for (let p = 0; p < 3; p++) index.locateAt(p, 0, 64 + p * 100, 100);
    const segments = [{ name: '00000000.seg', path: join(dir, '00000000.seg'), firstPosition: 0 }];
    const checkpointer = new IndexCheckpointer({ index, persisted, segments, log: silentLogger, everyEvents: 1 });
    try {
      checkpointer.durable({ events: 3, segment: 0, offset: 364 });
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(persisted.checkpoint().events).toBe(0);
      await checkpointer.flush(); // at close too: nothing the writer checkpoint has not written
      expect(persisted.checkpoint().events).toBe(0);
      expect(index.tailLength).toBe(3);

      checkpointer.acknowledge(3);
      await checkpointer.flush();
      expect(persisted.checkpoint().events).toBe(3);
      expect(index.tailLength).toBe(0);
    } finally {
      await checkpointer.stop();
      await persisted.close();
    }
  });

  it('a tail the writer checkpoint does not cover is acknowledged once synced at open, so the next start keeps the index', async () => {
    await writeNotes(120);
    // As a writer that crashed after its last writes but before their acknowledgement was recorded leaves it.
    await rm(join(dir, INDEX_DIRECTORY), { recursive: true });
    writeWriterCheckpoint(dir, 100);

    const second = await openFileEventStore({ dir, log: silentLogger });
    expect(readWriterCheckpoint(dir)).toBe(120);
    await second.close(); // no append: the writer checkpoint is not written again

    const log = recordingLogger();
    const third = await openFileEventStore({ dir, log, verify: 'checkpoint' });
    expect(log.entries.filter((e) => e.level !== 'info')).toEqual([]);
    expect(openedLine(log.entries).replayedEvents).toBe(0);
    await expectAllEvents(third, 120);
    await third.close();
  });
});
