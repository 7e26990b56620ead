import { randomUUID } from 'node:crypto';
import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STATES_DIRECTORY } from '../events/state-shelf.ts';
import { openFileEventStore } from '../events/file-log/store.ts';
import type { EventStore, ReadStreamOptions, RecordedEvent, StateShelf } from '../events/port.ts';
import type { JsonValue } from '../signing/rfc8785.ts';
import { loadState, type Decider, type DomainEvent } from './decider.ts';
import { History } from './history.ts';
import { headThenList, inChunks, matchesEvent, shelvedSnapshot, shelveSnapshot, snapshotDue, snapshotsWritten, SNAPSHOT_MIN_EVENTS, type StateCodec } from './state-snapshots.ts';

type Noted = DomainEvent & { type: 'Noted'; data: { text: string } };
/** Notes in pieces of 100, so that a snapshot of a few thousand is written and read over several pieces. */
const notesCodec: StateCodec<History<string>> = {
  kind: 'notes',
  version: 1,
  encode: (state) => inChunks(state.toArray(), 100),
  decoder() {
    let history = History.empty<string>();
    return {
      add(piece) {
        if (!Array.isArray(piece) || !piece.every((text) => typeof text === 'string')) throw new Error('not a list of notes');
        for (const text of piece) history = history.append(text);
      },
      finish: () => history,
    };
  },
};
const notes: Decider<{ text: string }, Noted, History<string>> = {
  initialState: History.empty(),
  decide: (command) => [{ type: 'Noted', data: { text: command.text } }],
  evolve: (state, event) => state.append(event.data.text),
  snapshot: notesCodec,
};
const parse = (event: RecordedEvent): Noted => ({ type: 'Noted', data: { text: String((event.data as { text: unknown }).text) } });
const texts = (prefix: string, count: number): string[] => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

async function append(store: EventStore, stream: string, all: string[]): Promise<void> {
  for (let at = 0; at < all.length; at += 1_000) await store.appendToStream(stream, all.slice(at, at + 1_000).map((text) => ({ id: randomUUID(), type: 'Noted', data: { text } })));
}

/** The store, with the options of every stream read and how many events each answered. */
function watched(store: EventStore): { store: EventStore; reads: { options: ReadStreamOptions | undefined; events: number }[] } {
  const reads: { options: ReadStreamOptions | undefined; events: number }[] = [];
  const readStream: EventStore['readStream'] = async (stream, options) => {
    const page = await store.readStream(stream, options);
    reads.push({ options, events: page.length });
    return page;
  };
  return { reads, store: { ...store, readStream } };
}

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const dirs: string[] = [];
async function logDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'state-snapshots-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function foldedAndClosed(dir: string, stream: string, all: string[]): Promise<void> {
  const store = await openFileEventStore({ dir, log: quiet });
  await append(store, stream, all);
  expect((await loadState(store, stream, notes, parse)).state.length).toBe(all.length);
  await snapshotsWritten(store.stateShelf!);
  await store.close();
}

describe('state snapshots: a long stream folded after a restart', () => {
  it('starts from the snapshot written at its last fold, reading its last event again to check it, then only the events after it', async () => {
    const dir = await logDir();
    const first = texts('a', 3_000);
    await foldedAndClosed(dir, 'notes-long', first);

    const reopened = await openFileEventStore({ dir, log: quiet });
    const later = texts('b', 100);
    await append(reopened, 'notes-long', later);
    const { store, reads } = watched(reopened);
    const loaded = await loadState(store, 'notes-long', notes, parse);
    expect(loaded.state.toArray()).toEqual([...first, ...later]);
    expect(loaded.revision).toBe(3_099n);
    expect(reads[0]!.options?.fromRevision).toBe(2_999n);
    expect(reads.reduce((events, read) => events + read.events, 0)).toBe(101);
    await reopened.close();
  });

  it('writes the next snapshot only when enough events came after the last one', async () => {
    const dir = await logDir();
    await foldedAndClosed(dir, 'notes-growing', texts('a', 3_000));
    const store = await openFileEventStore({ dir, log: quiet });
    await loadState(store, 'notes-growing', notes, parse);
    // 500 more (fewer than SNAPSHOT_MIN_EVENTS since the last one): no snapshot; 600 more: one.
    await append(store, 'notes-growing', texts('b', 500));
    await loadState(store, 'notes-growing', notes, parse);
    await snapshotsWritten(store.stateShelf!);
    await store.close();
    const afterFirst = watched(await openFileEventStore({ dir, log: quiet }));
    await loadState(afterFirst.store, 'notes-growing', notes, parse);
    expect(afterFirst.reads[0]!.options?.fromRevision).toBe(2_999n);
    await append(afterFirst.store, 'notes-growing', texts('c', 600));
    await loadState(afterFirst.store, 'notes-growing', notes, parse);
    await snapshotsWritten(afterFirst.store.stateShelf!);
    await afterFirst.store.close();
    const afterSecond = watched(await openFileEventStore({ dir, log: quiet }));
    expect((await loadState(afterSecond.store, 'notes-growing', notes, parse)).state.length).toBe(4_100);
    expect(afterSecond.reads[0]!.options?.fromRevision).toBe(4_099n);
    await afterSecond.store.close();
  });

  it('folds from the start when the log no longer holds the event the snapshot was folded up to, and replaces the snapshot', async () => {
    const snapshotted = await logDir();
    await foldedAndClosed(snapshotted, 'notes-restored', texts('old', 3_000));
    // Another log of the same stream (a log restored from elsewhere) beside the first one's snapshots.
    const dir = await logDir();
    const other = texts('new', 3_000);
    const writer = await openFileEventStore({ dir, log: quiet });
    await append(writer, 'notes-restored', other);
    await writer.close();
    await rm(join(dir, STATES_DIRECTORY), { recursive: true, force: true });
    await cp(join(snapshotted, STATES_DIRECTORY), join(dir, STATES_DIRECTORY), { recursive: true });

    const { store, reads } = watched(await openFileEventStore({ dir, log: quiet }));
    expect((await loadState(store, 'notes-restored', notes, parse)).state.toArray()).toEqual(other);
    expect(reads.map((read) => read.options?.fromRevision)).toEqual([2_999n, undefined, 512n, 1024n, 1536n, 2048n, 2560n]);
    await snapshotsWritten(store.stateShelf!);
    await store.close();
    const again = watched(await openFileEventStore({ dir, log: quiet }));
    expect((await loadState(again.store, 'notes-restored', notes, parse)).state.toArray()).toEqual(other);
    expect(again.reads[0]!.options?.fromRevision).toBe(2_999n);
    expect(again.reads).toHaveLength(1);
    await again.store.close();
  });

  it('folds from the start past a torn snapshot, and writes a whole one in its place', async () => {
    const dir = await logDir();
    const all = texts('a', 2_000);
    await foldedAndClosed(dir, 'notes-torn', all);
    const [file] = (await readdir(join(dir, STATES_DIRECTORY))).filter((name) => name.endsWith('.state'));
    await writeFile(join(dir, STATES_DIRECTORY, file!), '{"format":"state-snapshot/1"');

    const store = await openFileEventStore({ dir, log: quiet });
    expect((await loadState(store, 'notes-torn', notes, parse)).state.toArray()).toEqual(all);
    await snapshotsWritten(store.stateShelf!);
    expect(await shelvedSnapshot(store.stateShelf!, notesCodec, 'notes-torn')).toMatchObject({ upTo: { revision: 1_999n } });
    await store.close();
  });

  it('writes no snapshot of a short stream, and none from a store opened read-only', async () => {
    const dir = await logDir();
    await foldedAndClosed(dir, 'notes-short', texts('a', SNAPSHOT_MIN_EVENTS - 1));
    expect((await readdir(join(dir, STATES_DIRECTORY))).filter((name) => name.endsWith('.state'))).toEqual([]);
    const reader = await openFileEventStore({ dir, readOnly: true, log: quiet });
    expect(reader.stateShelf).toBeUndefined();
    await reader.close();
  });
});

/** A shelf in memory, for the codec-level checks. */
function memoryShelf(): StateShelf & { texts: Map<string, string> } {
  const texts = new Map<string, string>();
  return {
    texts,
    get: async (name) => texts.get(name),
    put: async (name, text) => void texts.set(name, text),
    drop: async (name) => void texts.delete(name),
  };
}

const eventAt = (revision: bigint): RecordedEvent => ({ id: randomUUID(), type: 'Noted', data: {}, metadata: {}, stream: 's', revision, position: revision + 10n, recordedAt: 1_700_000_000_000 });

describe('state snapshots: the text on the shelf', () => {
  it('is due after SNAPSHOT_MIN_EVENTS events, then after at least as many more and an eighth of the stream', () => {
    expect(snapshotDue(BigInt(SNAPSHOT_MIN_EVENTS - 2), undefined)).toBe(false);
    expect(snapshotDue(BigInt(SNAPSHOT_MIN_EVENTS - 1), undefined)).toBe(true);
    expect(snapshotDue(9_999n + 1_023n, 9_999n)).toBe(false);
    expect(snapshotDue(9_999n + 1_250n, 9_999n)).toBe(false);
    expect(snapshotDue(9_999n + 1_429n, 9_999n)).toBe(true);
  });

  it('is read back by the codec that wrote it, with the event it was folded up to', async () => {
    const shelf = memoryShelf();
    const upTo = eventAt(41n);
    shelveSnapshot(shelf, notesCodec, 's', History.empty<string>().append('x').append('y'), upTo);
    await snapshotsWritten(shelf);
    const snapshot = await shelvedSnapshot(shelf, notesCodec, 's');
    expect(snapshot?.state.toArray()).toEqual(['x', 'y']);
    expect(matchesEvent(snapshot!.upTo, upTo)).toBe(true);
    // Another event at that revision, the same one recorded at another time or place: not it.
    expect(matchesEvent(snapshot!.upTo, { ...upTo, id: randomUUID() })).toBe(false);
    expect(matchesEvent(snapshot!.upTo, { ...upTo, recordedAt: upTo.recordedAt + 1 })).toBe(false);
    expect(matchesEvent(snapshot!.upTo, { ...upTo, position: upTo.position + 1n })).toBe(false);
    expect(matchesEvent(snapshot!.upTo, undefined)).toBe(false);
    expect(await shelvedSnapshot(shelf, notesCodec, 'other-stream')).toBeUndefined();
  });

  it('is dropped when another version of the codec, or a changed text, finds it', async () => {
    for (const spoil of [(text: string) => text, (text: string) => text.replace('"x"', '"z"')]) {
      const shelf = memoryShelf();
      shelveSnapshot(shelf, notesCodec, 's', History.empty<string>().append('x'), eventAt(0n));
      await snapshotsWritten(shelf);
      const [name, text] = [...shelf.texts][0]!;
      shelf.texts.set(name, spoil(text));
      const reader = spoil(text) === text ? { ...notesCodec, version: 2 } : notesCodec;
      expect(await shelvedSnapshot(shelf, reader, 's')).toBeUndefined();
      expect(shelf.texts.size).toBe(0);
    }
  });

  it('is not written twice at once for a stream, and a codec that fails writes nothing and is reported to the shelf', async () => {
    const shelf = memoryShelf();
    let puts = 0;
    const reported: Array<[string, string]> = [];
    const counted = { ...shelf, put: async (name: string, text: string) => (puts++, shelf.put(name, text)), encodeFailed: (name: string, error: Error) => void reported.push([name, error.message]) };
    shelveSnapshot(counted, notesCodec, 's', History.empty<string>().append('x'), eventAt(0n));
    shelveSnapshot(counted, notesCodec, 's', History.empty<string>().append('y'), eventAt(1n));
    await snapshotsWritten(counted);
    expect(puts).toBe(1);
    expect(reported).toEqual([]);
    const failing: StateCodec<History<string>> = { ...notesCodec, kind: 'failing', encode: (): Iterable<JsonValue> => { throw new Error('cannot encode'); } };
    shelveSnapshot(counted, failing, 's', History.empty(), eventAt(0n));
    await snapshotsWritten(counted);
    expect(puts).toBe(1);
    expect(reported).toEqual([['failing\ns', 'cannot encode']]);
    // A shelf that cannot report (no encodeFailed) loses nothing else: the stream goes on without a snapshot.
    shelveSnapshot(shelf, failing, 's', History.empty(), eventAt(0n));
    await snapshotsWritten(shelf);
    expect(shelf.texts.size).toBe(1);
  });

  it('does not report a put that fails as a codec failure (the shelf reports its own)', async () => {
    const shelf = memoryShelf();
    const reported: string[] = [];
    const full = { ...shelf, put: async () => Promise.reject(new Error('ENOSPC')), encodeFailed: (name: string) => void reported.push(name) };
    shelveSnapshot(full, notesCodec, 's', History.empty<string>().append('x'), eventAt(0n));
    await snapshotsWritten(full);
    expect(reported).toEqual([]);
    expect(shelf.texts.size).toBe(0);
  });

  it('is written and read a few hundred kilobytes at a time, letting other work run between', async () => {
    const shelf = memoryShelf();
    const many = texts('x'.repeat(100), 20_000);
    const state = many.reduce<History<string>>((history, text) => history.append(text), History.empty());
    const turnsDuring = async (work: () => Promise<unknown>): Promise<number> => {
      let turns = 0;
      let working = true;
      const other = (): void => {
        if (!working) return;
        turns++;
        setImmediate(other);
      };
      setImmediate(other);
      await work();
      working = false;
      return turns;
    };
    // About 2.2 MB of text: at least eight turns each way.
    expect(await turnsDuring(async () => (shelveSnapshot(shelf, notesCodec, 's', state, eventAt(19_999n)), snapshotsWritten(shelf)))).toBeGreaterThanOrEqual(8);
    let read: Awaited<ReturnType<typeof shelvedSnapshot<History<string>>>>;
    expect(await turnsDuring(async () => (read = await shelvedSnapshot(shelf, notesCodec, 's')))).toBeGreaterThanOrEqual(8);
    expect(read!.state.toArray()).toEqual(many);
  });
});

describe('state snapshots: a decoder of a head, then pieces of a list', () => {
  const decoder = () => headThenList('test', (piece) => ({ name: String(piece) }), [] as number[], (list, piece) => [...list, Number(piece)], (head, list) => ({ ...head, list }));

  it('reads the first piece as the head and every later one onto the list', () => {
    const reading = decoder();
    for (const piece of ['agent', 1, 2, 3]) reading.add(piece);
    expect(reading.finish()).toEqual({ name: 'agent', list: [1, 2, 3] });
    const headOnly = decoder();
    headOnly.add('alone');
    expect(headOnly.finish()).toEqual({ name: 'alone', list: [] });
  });

  it('refuses a snapshot without its head', () => {
    expect(() => decoder().finish()).toThrow(/test snapshot without its head/);
  });
});
