import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withOwnAppend } from '../events/borrowed-store.ts';
import { openFileEventStore } from '../events/file-log/store.ts';
import { createMemoryEventStore } from '../events/memory-store.ts';
import type { EventStore, ReadStreamOptions, RecordedEvent } from '../events/port.ts';
import { withStagedAppends } from '../events/staged-store.ts';
import { dataSize, heldWholeWindow } from '../events/stream-window.ts';
import { FOLD_PAGE_BYTES, FOLD_PAGE_EVENTS, handleCommand, loadState, type Decider, type DomainEvent } from './decider.ts';
import { FOLDED_BYTES_KEPT, keepFoldedStates } from './kept-folds.ts';
import { History } from './history.ts';

type Noted = DomainEvent & { type: 'Noted'; data: { text: string } };
const notes: Decider<{ text: string }, Noted, History<string>> = {
  initialState: History.empty(),
  decide: (command) => [{ type: 'Noted', data: { text: command.text } }],
  evolve: (state, event) => state.append(event.data.text),
};
const parse = (event: RecordedEvent): Noted => ({ type: 'Noted', data: { text: String((event.data as { text: unknown }).text) } });
const note = (text: string) => ({ id: randomUUID(), type: 'Noted', data: { text } });

/** The store, and the options of every stream read made through it. */
function watched(store: EventStore): { store: EventStore; reads: Array<ReadStreamOptions | undefined> } {
  const reads: Array<ReadStreamOptions | undefined> = [];
  return { reads, store: { ...store, readStream: (stream, options) => (reads.push(options), store.readStream(stream, options)) } };
}

/** The store, and what every stream read made through it answered. */
function answered(store: EventStore): { store: EventStore; pages: RecordedEvent[][] } {
  const pages: RecordedEvent[][] = [];
  return { pages, store: { ...store, readStream: async (stream, options) => { const page = await store.readStream(stream, options); pages.push(page); return page; } } };
}

const PAGE = { maxCount: FOLD_PAGE_EVENTS, maxBytes: FOLD_PAGE_BYTES };

describe('loading a stream state', () => {
  it('reads only the events appended since the last load, whoever appended them, and folds them onto the state it kept', async () => {
    const { store, reads } = watched(createMemoryEventStore());
    await store.appendToStream('notes-1', [note('a'), note('b'), note('c')]);
    expect((await loadState(store, 'notes-1', notes, parse)).state.toArray()).toEqual(['a', 'b', 'c']);
    await store.appendToStream('notes-1', [note('d'), note('e')]);
    const loaded = await loadState(store, 'notes-1', notes, parse);
    expect(loaded.state.toArray()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(loaded.revision).toBe(4n);
    expect(reads.map((r) => r?.fromRevision)).toEqual([undefined, 3n]);
    // Nothing new: one empty read, the same state.
    expect((await loadState(store, 'notes-1', notes, parse)).state.length).toBe(5);
    expect(reads.at(-1)?.fromRevision).toBe(5n);
  });

  it('reads a long stream a page at a time, letting other work run between pages, and folds it as one read would', async () => {
    const { store, reads } = watched(createMemoryEventStore());
    const total = FOLD_PAGE_EVENTS * 3 + 7;
    const texts = Array.from({ length: total }, (_, i) => `n${i}`);
    for (let at = 0; at < total; at += 1_000) await store.appendToStream('notes-paged', texts.slice(at, at + 1_000).map(note));
    let loading = true;
    let turns = 0;
    const otherWork = (): void => {
      if (!loading) return;
      turns++;
      setImmediate(otherWork);
    };
    setImmediate(otherWork);
    const loaded = await loadState(store, 'notes-paged', notes, parse);
    loading = false;
    expect(loaded.state.toArray()).toEqual(texts);
    expect(loaded.revision).toBe(BigInt(total - 1));
    expect(reads).toEqual([0, 1, 2, 3].map((page) => (page === 0 ? PAGE : { fromRevision: BigInt(page * FOLD_PAGE_EVENTS), ...PAGE })));
    // The memory store answers without I/O: only the fold's own pauses let the other work in.
    expect(turns).toBeGreaterThanOrEqual(3);
    await store.appendToStream('notes-paged', [note('next')]);
    expect((await loadState(store, 'notes-paged', notes, parse)).state.last()).toBe('next');
    expect(reads.at(-1)).toEqual({ fromRevision: BigInt(total), ...PAGE });
  });

  it('reads a stream of large events in pages of at most FOLD_PAGE_BYTES, on the file log and in memory, and folds it whole', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fold-pages-'));
    const quiet = { info: () => {}, warn: () => {}, error: () => {} };
    const stores = { memory: createMemoryEventStore(), file: await openFileEventStore({ dir, log: quiet }) };
    try {
      // 40 events of 300,000 characters: 12 MB, three pages' worth, in fewer events than a page may hold.
      const texts = Array.from({ length: 40 }, (_, i) => `${i}:`.padEnd(300_000, 'x'));
      for (const [name, plain] of Object.entries(stores)) {
        for (let at = 0; at < texts.length; at += 10) await plain.appendToStream(`big-${name}`, texts.slice(at, at + 10).map(note));
        const { store, pages } = answered(plain);
        const loaded = await loadState(store, `big-${name}`, notes, parse);
        expect(loaded.state.toArray(), name).toEqual(texts);
        expect(pages.length, name).toBeGreaterThanOrEqual(3);
        for (const page of pages.slice(0, -1)) {
          expect(heldWholeWindow(page), name).toBe(false);
          // Taken while under the bound: all but the page's last event hold less than it.
          expect(page.slice(0, -1).reduce((sum, e) => sum + dataSize(e), 0), name).toBeLessThan(FOLD_PAGE_BYTES);
        }
        expect(heldWholeWindow(pages.at(-1)!), name).toBe(true);
        expect(pages.flat().map((e) => Number(e.revision)), name).toEqual(texts.map((_, i) => i));
      }
    } finally {
      await stores.file.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('folds a stream whole through a store that loses the mark of a whole read (a wrapper answering copies): a read more, no page missed', async () => {
    const plain = createMemoryEventStore();
    const texts = Array.from({ length: 40 }, (_, i) => `${i}:`.padEnd(300_000, 'x'));
    for (let at = 0; at < texts.length; at += 10) await plain.appendToStream('big-copied', texts.slice(at, at + 10).map(note));
    const reads: number[] = [];
    const copying: EventStore = { ...plain, readStream: async (stream, options) => { const page = [...(await plain.readStream(stream, options))]; reads.push(page.length); return page; } };
    expect((await loadState(copying, 'big-copied', notes, parse)).state.toArray()).toEqual(texts);
    // The pages the bound cut, then an empty read where a marked last page would have ended it.
    expect(reads.at(-1)).toBe(0);
    expect(reads.reduce((sum, n) => sum + n, 0)).toBe(texts.length);
  });

  it('answers no stream as the initial state at no revision, and a command on it appends at "no stream"', async () => {
    const store = createMemoryEventStore();
    expect(await loadState(store, 'notes-none', notes, parse)).toEqual({ state: History.empty(), revision: undefined });
    const handled = await handleCommand(store, 'notes-none', notes, { text: 'first' }, { origin: 'payment-1', parse });
    expect(handled.revision).toBe(0n);
    expect((await loadState(store, 'notes-none', notes, parse)).state.toArray()).toEqual(['first']);
  });

  it('shares what it kept with a store lent with an append of its own, but not with one that shows staged events', async () => {
    const { store, reads } = watched(createMemoryEventStore());
    await store.appendToStream('notes-2', [note('a')]);
    await loadState(store, 'notes-2', notes, parse);
    const lent = withOwnAppend(store, (stream, events, options) => store.appendToStream(stream, events, options));
    await lent.appendToStream('notes-2', [note('b')]);
    expect((await loadState({ ...lent }, 'notes-2', notes, parse)).state.toArray()).toEqual(['a', 'b']);
    expect(reads.at(-1)?.fromRevision).toBe(1n);

    const staged = withStagedAppends(store);
    await staged.appendToStream('notes-2', [note('staged')]);
    expect((await loadState(staged, 'notes-2', notes, parse)).state.toArray()).toEqual(['a', 'b', 'staged']);
    // What was only staged never reaches the state of the real stream.
    expect((await loadState(store, 'notes-2', notes, parse)).state.toArray()).toEqual(['a', 'b']);
    expect((await loadState(lent, 'notes-2', notes, parse)).state.toArray()).toEqual(['a', 'b']);
  });

  it('prepares the command at each attempt with that attempt\'s state: a write between two attempts is seen by the second', async () => {
    const store = createMemoryEventStore();
    await store.appendToStream('notes-prepared', [note('a')]);
    const seen: number[] = [];
    const handled = await handleCommand(store, 'notes-prepared', notes, { text: 'mine' }, {
      origin: 'payment-prepared',
      parse,
      async prepare(command, state) {
        seen.push(state.length);
        // Another call's write lands between this attempt's read and its append.
        if (seen.length === 1) await store.appendToStream('notes-prepared', [note('meanwhile')]);
        return { text: `${command.text} after ${state.length}` };
      },
    });
    expect(seen).toEqual([1, 2]);
    expect(handled.revision).toBe(2n);
    expect((await loadState(store, 'notes-prepared', notes, parse)).state.toArray()).toEqual(['a', 'meanwhile', 'mine after 2']);
  });

  it('keeps concurrent commands on one stream linear: every one lands once, in the state', async () => {
    const store = createMemoryEventStore();
    await Promise.all(Array.from({ length: 20 }, (_, i) => handleCommand(store, 'notes-3', notes, { text: `n${i}` }, { origin: `payment-${i}`, parse })));
    const { state, revision } = await loadState(store, 'notes-3', notes, parse);
    expect(revision).toBe(19n);
    expect(new Set(state.toArray())).toEqual(new Set(Array.from({ length: 20 }, (_, i) => `n${i}`)));
    expect(state.toArray()).toEqual((await store.readStream('notes-3')).map((e) => (e.data as { text: string }).text));
  });

  it('keeps a stream past its bound apart, the last one loaded only, without pushing out the others', async () => {
    const { store, reads } = watched(createMemoryEventStore());
    const text = 'x'.repeat(64 * 1024);
    const total = Math.ceil(FOLDED_BYTES_KEPT / text.length) + 5;
    for (const stream of ['notes-long-1', 'notes-long-2']) {
      for (let at = 0; at < total; at += 50) await store.appendToStream(stream, Array.from({ length: Math.min(50, total - at) }, (_, i) => note(`${at + i} ${text}`)));
    }
    await store.appendToStream('notes-short', [note('kept')]);
    await loadState(store, 'notes-short', notes, parse);

    await loadState(store, 'notes-long-1', notes, parse);
    await store.appendToStream('notes-long-1', [note('next')]);
    const { state, revision } = await loadState(store, 'notes-long-1', notes, parse);
    expect(revision).toBe(BigInt(total));
    expect(state.last()).toBe('next');
    expect(state.at(total - 1)?.startsWith(`${total - 1} `)).toBe(true);
    expect(reads.at(-1)?.fromRevision).toBe(BigInt(total));

    // Another stream past the bound takes its place: the first is folded from its start again.
    let first = reads.length;
    await loadState(store, 'notes-long-2', notes, parse);
    expect(reads[first]?.fromRevision).toBeUndefined();
    first = reads.length;
    expect((await loadState(store, 'notes-long-1', notes, parse)).state.length).toBe(total + 1);
    expect(reads[first]?.fromRevision).toBeUndefined();
    // The short stream's fold was not pushed out by either.
    await loadState(store, 'notes-short', notes, parse);
    expect(reads.at(-1)?.fromRevision).toBe(1n);
  });

  it('counts the bound in bytes, not events: a stream of many small events is kept whole, and pushes out the oldest folds once the bytes run over', async () => {
    const { store, reads } = watched(createMemoryEventStore());
    // 30,000 small events: more than the 10,000 events the bound used to count, a fraction of its bytes.
    for (let at = 0; at < 30_000; at += 5_000) await store.appendToStream('notes-many', Array.from({ length: 5_000 }, (_, i) => note(`n${at + i}`)));
    await loadState(store, 'notes-many', notes, parse);
    await store.appendToStream('notes-many', [note('last')]);
    expect((await loadState(store, 'notes-many', notes, parse)).state.last()).toBe('last');
    expect(reads.at(-1)?.fromRevision).toBe(30_000n);

    // Three large streams of a few hundred events, each over half the bound: two do not fit together.
    const text = 'y'.repeat(64 * 1024);
    const each = Math.ceil(FOLDED_BYTES_KEPT / 2 / text.length) + 5;
    for (const stream of ['notes-big-1', 'notes-big-2', 'notes-big-3']) {
      for (let at = 0; at < each; at += 50) await store.appendToStream(stream, Array.from({ length: Math.min(50, each - at) }, () => note(text)));
      await loadState(store, stream, notes, parse);
    }
    // The first is kept beside the small stream (whose many events weigh little); the second
    // went to the slot apart and the third took it from there, so the second is folded again.
    const startOf = async (stream: string) => {
      const first = reads.length;
      await loadState(store, stream, notes, parse);
      return reads[first]?.fromRevision;
    };
    expect(await startOf('notes-big-1')).toBe(BigInt(each));
    expect(await startOf('notes-big-3')).toBe(BigInt(each));
    expect(await startOf('notes-big-2')).toBeUndefined();
  });

  it("counts what the decider says its state holds, where it says so, instead of its events' data", async () => {
    const { store, reads } = watched(createMemoryEventStore());
    // A state that keeps only how many notes there were, and says it holds that many characters.
    const counted: Decider<{ text: string }, Noted, number> = { initialState: 0, decide: (command) => [{ type: 'Noted', data: { text: command.text } }], evolve: (n) => n + 1, keptSize: (n) => n };
    const text = 'w'.repeat(64 * 1024);
    const each = Math.ceil(FOLDED_BYTES_KEPT / text.length) + 5;
    for (const stream of ['notes-counted-1', 'notes-counted-2']) {
      for (let at = 0; at < each; at += 50) await store.appendToStream(stream, Array.from({ length: Math.min(50, each - at) }, () => note(text)));
      expect((await loadState(store, stream, counted, parse)).state).toBe(each);
    }
    // Each is past the bound in data, not in what is kept: neither pushed the other out.
    for (const stream of ['notes-counted-1', 'notes-counted-2']) {
      await store.appendToStream(stream, [note('one more')]);
      expect((await loadState(store, stream, counted, parse)).state).toBe(each + 1);
      expect(reads.at(-1)?.fromRevision).toBe(BigInt(each));
    }
  });

  it('keeps as much as the bound set for its store: streams taking turns that fit it are each read only for their new events; past it, those kept stay kept and only the others are folded again', async () => {
    const text = 'z'.repeat(64 * 1024);
    // Six streams of a quarter of the default bound each: three fit it, all six fit twice it.
    const each = Math.ceil(FOLDED_BYTES_KEPT / 4 / text.length) + 2;
    const streams = Array.from({ length: 6 }, (_, i) => `notes-turn-${i + 1}`);
    const fresh = async (bound: number | undefined) => {
      const watching = watched(createMemoryEventStore());
      if (bound !== undefined) keepFoldedStates(watching.store, bound);
      for (const stream of streams) for (let at = 0; at < each; at += 50) await watching.store.appendToStream(stream, Array.from({ length: Math.min(50, each - at) }, () => note(text)));
      return watching;
    };
    /** A call on `stream` after a new event: where its read started (undefined: from the start). */
    const call = async ({ store, reads }: Awaited<ReturnType<typeof fresh>>, stream: string, label: string) => {
      await store.appendToStream(stream, [note(label)]);
      const before = reads.length;
      const { state } = await loadState(store, stream, notes, parse);
      expect(state.last()).toBe(label);
      return reads[before]?.fromRevision;
    };
    const twoRounds = async (watching: Awaited<ReturnType<typeof fresh>>) => {
      const starts: Array<bigint | undefined> = [];
      for (const round of [0, 1]) for (const stream of streams) starts.push(await call(watching, stream, `round ${round}`));
      return starts;
    };
    const fromStart = (n: number) => Array.from({ length: n }, () => undefined);
    const newEventsOnly = (n: number) => Array.from({ length: n }, () => BigInt(each + 1));

    // Twice the default holds all six: after the first round, each call reads its one new event.
    expect(await twoRounds(await fresh(2 * FOLDED_BYTES_KEPT))).toEqual([...fromStart(6), ...newEventsOnly(6)]);
    // The default holds three: they stay kept (the others are used no more than they are), and
    // only the other three are folded again. Keeping the most recently used would fold all six.
    const atDefault = await fresh(undefined);
    expect(await twoRounds(atDefault)).toEqual([...fromStart(6), ...newEventsOnly(3), ...fromStart(3)]);
    // A stream that grows busier than those kept gets in, and pushes out the least recently used.
    for (let i = 0; i < 3; i++) await call(atDefault, 'notes-turn-4', `busy ${i}`);
    expect(await call(atDefault, 'notes-turn-4', 'kept now')).toBe(BigInt(each + 5));
    expect(await call(atDefault, 'notes-turn-1', 'pushed out')).toBeUndefined();
    expect(() => keepFoldedStates(createMemoryEventStore(), -1)).toThrow(/whole number of bytes/);
  });
});
