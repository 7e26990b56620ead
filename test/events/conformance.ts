import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppendTooLargeError, WrongExpectedRevisionError, type EventData, type EventStore, type RecordedEvent } from '../../src/events/port.ts';
import { heldWholeWindow } from '../../src/events/stream-window.ts';

export interface AdapterUnderTest {
  open(): Promise<EventStore>;
  /** Called after each test with the store it opened (close it, remove its files). */
  dispose(store: EventStore): Promise<void>;
}

/** Unique per test: the EventStoreDB run shares one server with earlier runs. */
function streamName(label: string): string {
  return `conformance-${label}-${randomUUID()}`;
}

function event(n: number, type = 'Counted'): EventData {
  return { id: randomUUID(), type, data: { n, text: `event ${n}` }, metadata: { origin: 'conformance' } };
}

async function collect(iterable: AsyncIterable<RecordedEvent>, keep: (e: RecordedEvent) => boolean): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const e of iterable) if (keep(e)) out.push(e);
  return out;
}

async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

/** The one behaviour every adapter of the port must show; see src/events/port.ts. */
export function eventStoreConformance(adapter: AdapterUnderTest): void {
  let store: EventStore;
  beforeEach(async () => {
    store = await adapter.open();
  });
  afterEach(async () => {
    await adapter.dispose(store);
  });

  describe('the limit on one append, where the store has one (EventStoreDB: MaxAppendSize)', () => {
    it('an append over appendLimitBytes is refused whole before anything is written; one within it is taken', async ({ skip }) => {
      const limit = store.appendLimitBytes;
      if (limit === undefined) return skip('this store declares no limit on one append');
      const stream = streamName('append-limit');
      const half = (n: number): EventData => ({ id: randomUUID(), type: 'Half', data: { n, text: 'x'.repeat(Math.floor(limit / 2)) } });
      const refused = await rejection(store.appendToStream(stream, [half(1), half(2)], { expectedRevision: 'no_stream' }));
      expect(refused).toBeInstanceOf(AppendTooLargeError);
      expect(refused).toMatchObject({ stream, limit });
      expect((refused as AppendTooLargeError).bytes).toBeGreaterThan(limit);
      expect(await store.readStream(stream)).toEqual([]);
      const taken = half(3);
      await store.appendToStream(stream, [taken], { expectedRevision: 'no_stream' });
      expect((await store.readStream(stream)).map((e) => e.id)).toEqual([taken.id]);
    });
  });

  describe('append and read', () => {
    it('reads a stream forwards with revisions, data and metadata as appended', async () => {
      const stream = streamName('read');
      const events = [0, 1, 2, 3, 4].map((n) => event(n));
      const result = await store.appendToStream(stream, events, { expectedRevision: 'no_stream' });
      expect(result.nextExpectedRevision).toBe(4n);
      const read = await store.readStream(stream);
      expect(read.map((e) => e.id)).toEqual(events.map((e) => e.id));
      expect(read.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
      expect(read[2]).toMatchObject({ stream, type: 'Counted', data: { n: 2, text: 'event 2' }, metadata: { origin: 'conformance' } });
      expect(read.at(-1)!.position).toBe(result.position);
      for (let i = 1; i < read.length; i++) expect(read[i]!.position > read[i - 1]!.position).toBe(true);
      expect(typeof read[0]!.recordedAt).toBe('number');
    });

    it('defaults absent metadata to an empty object', async () => {
      const stream = streamName('metadata');
      await store.appendToStream(stream, [{ id: randomUUID(), type: 'Bare', data: { ok: true } }]);
      const [read] = await store.readStream(stream);
      expect(read!.metadata).toEqual({});
    });

    it('reads backwards, from a revision, and at most maxCount events', async () => {
      const stream = streamName('ranges');
      await store.appendToStream(stream, [0, 1, 2, 3, 4, 5].map((n) => event(n)));
      const revisions = async (options: Parameters<EventStore['readStream']>[1]) =>
        (await store.readStream(stream, options)).map((e) => e.revision);
      expect(await revisions({ direction: 'backwards' })).toEqual([5n, 4n, 3n, 2n, 1n, 0n]);
      expect(await revisions({ direction: 'backwards', fromRevision: 3n })).toEqual([3n, 2n, 1n, 0n]);
      expect(await revisions({ direction: 'backwards', maxCount: 2 })).toEqual([5n, 4n]);
      expect(await revisions({ direction: 'backwards', fromRevision: 2n, maxCount: 2 })).toEqual([2n, 1n]);
      expect(await revisions({ fromRevision: 2n })).toEqual([2n, 3n, 4n, 5n]);
      expect(await revisions({ fromRevision: 2n, maxCount: 2 })).toEqual([2n, 3n]);
      expect(await revisions({ maxCount: 1 })).toEqual([0n]);
      expect(await revisions({ fromRevision: 6n })).toEqual([]);
    });

    it('reads at most about maxBytes: events taken while under it, at least one, and a read it cut nothing of is marked so', async () => {
      const stream = streamName('bytes');
      // Ten events of about 10 KB: two hold less than 25,000 bytes (as any store measures them), three more.
      await store.appendToStream(stream, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => ({ ...event(n), data: { n, text: 'x'.repeat(10_000) } })));
      const read = async (options: Parameters<EventStore['readStream']>[1]) => {
        const events = await store.readStream(stream, options);
        return { revisions: events.map((e) => Number(e.revision)), cutShort: !heldWholeWindow(events) };
      };
      expect(await read({ maxBytes: 25_000 })).toEqual({ revisions: [0, 1, 2], cutShort: true });
      expect(await read({ direction: 'backwards', maxBytes: 25_000 })).toEqual({ revisions: [9, 8, 7], cutShort: true });
      expect(await read({ fromRevision: 4n, maxCount: 5, maxBytes: 25_000 })).toEqual({ revisions: [4, 5, 6], cutShort: true });
      expect(await read({ maxBytes: 1 })).toEqual({ revisions: [0], cutShort: true });
      // The window ends where the bound is reached, or before: nothing was left out.
      expect(await read({ fromRevision: 7n, maxBytes: 25_000 })).toEqual({ revisions: [7, 8, 9], cutShort: false });
      expect(await read({ direction: 'backwards', fromRevision: 1n, maxBytes: 25_000 })).toEqual({ revisions: [1, 0], cutShort: false });
      expect(await read({ maxCount: 2, maxBytes: 1_000_000 })).toEqual({ revisions: [0, 1], cutShort: false });
      expect(await read({ maxBytes: 1_000_000 })).toEqual({ revisions: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], cutShort: false });
    });

    it('reads an absent stream as empty', async () => {
      expect(await store.readStream(streamName('absent'))).toEqual([]);
      expect(await store.readStream(streamName('absent'), { direction: 'backwards' })).toEqual([]);
    });
  });

  describe('expected revision', () => {
    it('"no_stream" succeeds on an absent stream and fails on an existing one', async () => {
      const stream = streamName('no-stream');
      await store.appendToStream(stream, [event(0)], { expectedRevision: 'no_stream' });
      const err = await rejection(store.appendToStream(stream, [event(1)], { expectedRevision: 'no_stream' }));
      expect(err).toBeInstanceOf(WrongExpectedRevisionError);
      expect(err).toMatchObject({ stream, expected: 'no_stream', actual: 0n });
    });

    it('"exists" fails on an absent stream and succeeds on an existing one', async () => {
      const stream = streamName('exists');
      const err = await rejection(store.appendToStream(stream, [event(0)], { expectedRevision: 'exists' }));
      expect(err).toBeInstanceOf(WrongExpectedRevisionError);
      expect(err).toMatchObject({ expected: 'exists', actual: 'no_stream' });
      await store.appendToStream(stream, [event(0)]);
      const result = await store.appendToStream(stream, [event(1)], { expectedRevision: 'exists' });
      expect(result.nextExpectedRevision).toBe(1n);
    });

    it('an exact revision succeeds only when it is the last revision', async () => {
      const stream = streamName('exact');
      await store.appendToStream(stream, [event(0), event(1)]);
      const stale = await rejection(store.appendToStream(stream, [event(2)], { expectedRevision: 0n }));
      expect(stale).toBeInstanceOf(WrongExpectedRevisionError);
      expect(stale).toMatchObject({ expected: 0n, actual: 1n });
      const ahead = await rejection(store.appendToStream(stream, [event(2)], { expectedRevision: 5n }));
      expect(ahead).toMatchObject({ actual: 1n });
      const onAbsent = await rejection(store.appendToStream(streamName('exact-absent'), [event(0)], { expectedRevision: 0n }));
      expect(onAbsent).toMatchObject({ actual: 'no_stream' });
      const ok = await store.appendToStream(stream, [event(2)], { expectedRevision: 1n });
      expect(ok.nextExpectedRevision).toBe(2n);
      expect(await store.readStream(stream)).toHaveLength(3);
    });

    it('"any" (the default) always appends', async () => {
      const stream = streamName('any');
      await store.appendToStream(stream, [event(0)], { expectedRevision: 'any' });
      await store.appendToStream(stream, [event(1)]);
      expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0n, 1n]);
    });

    it('of 50 concurrent appends at the same expected revision exactly one succeeds', async () => {
      const stream = streamName('race');
      await store.appendToStream(stream, [event(0)]);
      const outcomes = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) => store.appendToStream(stream, [event(100 + i)], { expectedRevision: 0n })),
      );
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(49);
      for (const l of lost) expect(l.reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('of 50 concurrent creations of one stream exactly one succeeds', async () => {
      const stream = streamName('claim');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) => store.appendToStream(stream, [event(i)], { expectedRevision: 'no_stream' })),
      );
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      expect(await store.readStream(stream)).toHaveLength(1);
    });
  });

  describe('idempotent appends', () => {
    it('the same events appended again at the same expected revision succeed without a second write', async () => {
      const stream = streamName('idempotent');
      const marker = await store.appendToStream(streamName('idempotent-marker'), [event(-1)]);
      const first = [event(0), event(1)];
      const original = await store.appendToStream(stream, first, { expectedRevision: 'no_stream' });
      const again = await store.appendToStream(stream, first, { expectedRevision: 'no_stream' });
      expect(again.nextExpectedRevision).toBe(original.nextExpectedRevision);
      const second = [event(2)];
      await store.appendToStream(stream, second, { expectedRevision: 1n });
      await store.appendToStream(stream, second, { expectedRevision: 1n });
      await store.appendToStream(stream, second, { expectedRevision: 'any' });
      const read = await store.readStream(stream);
      expect(read.map((e) => e.id)).toEqual([...first, ...second].map((e) => e.id));
      const inLog = await collect(store.readAll({ fromPosition: marker.position }), (e) => e.stream === stream);
      expect(inLog).toHaveLength(3);
    });

    it('concurrent duplicates of one append write it once', async () => {
      const stream = streamName('idempotent-concurrent');
      const events = [event(0)];
      const results = await Promise.all(Array.from({ length: 10 }, () => store.appendToStream(stream, events, { expectedRevision: 'no_stream' })));
      expect(new Set(results.map((r) => r.nextExpectedRevision))).toEqual(new Set([0n]));
      expect(await store.readStream(stream)).toHaveLength(1);
    });

    it('the same events at another expected revision behind the stream\'s end are refused, and so is an append only part of which is there', async () => {
      const stream = streamName('idempotent-mismatch');
      const [first, second, third] = [event(0), event(1), event(2)];
      await store.appendToStream(stream, [first], { expectedRevision: 'no_stream' });
      await store.appendToStream(stream, [second, third]);
      expect(await rejection(store.appendToStream(stream, [first], { expectedRevision: 0n }))).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await rejection(store.appendToStream(stream, [second], { expectedRevision: 'no_stream' }))).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await rejection(store.appendToStream(stream, [second, event(3)], { expectedRevision: 0n }))).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await rejection(store.appendToStream(stream, [second, third, event(3)], { expectedRevision: 0n }))).toBeInstanceOf(WrongExpectedRevisionError);
      expect((await store.readStream(stream)).map((e) => e.id)).toEqual([first, second, third].map((e) => e.id));
    });

    it('at the stream\'s end an append is not compared with the events before it: EventStoreDB appends it, ids met before or not', async () => {
      const stream = streamName('idempotent-at-end');
      const [first, second] = [event(0), event(1)];
      await store.appendToStream(stream, [first, second], { expectedRevision: 'no_stream' });
      const again = await store.appendToStream(stream, [first], { expectedRevision: 1n });
      expect(again.nextExpectedRevision).toBe(2n);
      expect((await store.readStream(stream)).map((e) => e.id)).toEqual([first, second, first].map((e) => e.id));
    });
  });

  describe('the global log', () => {
    it('readAll returns every event in append order, from an exclusive position, at most maxCount', async () => {
      const a = streamName('all-a');
      const b = streamName('all-b');
      const marker = await store.appendToStream(streamName('all-marker'), [event(-1)]);
      const order: string[] = [];
      for (let i = 0; i < 6; i++) {
        const e = event(i);
        order.push(e.id);
        await store.appendToStream(i % 2 === 0 ? a : b, [e]);
      }
      const ours = (e: RecordedEvent) => e.stream === a || e.stream === b;
      const all = await collect(store.readAll({ fromPosition: marker.position }), ours);
      expect(all.map((e) => e.id)).toEqual(order);
      for (let i = 1; i < all.length; i++) expect(all[i]!.position > all[i - 1]!.position).toBe(true);
      const rest = await collect(store.readAll({ fromPosition: all[2]!.position }), ours);
      expect(rest.map((e) => e.id)).toEqual(order.slice(3));
      const limited = await collect(store.readAll({ fromPosition: marker.position, maxCount: 2 }), () => true);
      expect(limited.map((e) => e.id)).toEqual(order.slice(0, 2));
    });

    it('headPosition, where the store tells it, is at or past the last append, and no event lies beyond it', async ({ skip }) => {
      if (!store.headPosition) skip('this store does not tell where its log ends');
      const stream = streamName('head');
      await store.appendToStream(stream, [event(0)]);
      await store.appendToStream(stream, [event(1), event(2)]);
      const head = await store.headPosition!();
      const [last] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
      // EventStoreDB may write events of its own after ours: the head is ours or later.
      expect(head! >= last!.position).toBe(true);
      expect(await collect(store.readAll({ fromPosition: head! }), (e) => e.stream === stream)).toEqual([]);
    });

    it('a subscription catches up, then delivers live events, in order and once each', async () => {
      const stream = streamName('subscribe');
      const marker = await store.appendToStream(streamName('subscribe-marker'), [event(-1)]);
      const before = [event(0), event(1), event(2)];
      await store.appendToStream(stream, before);
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({
        fromPosition: marker.position,
        onEvent: async (e) => {
          // A slow handler: delivery must still be one at a time and in order.
          await new Promise((r) => setTimeout(r, 1));
          if (e.stream === stream) seen.push(e);
        },
      });
      try {
        await waitUntil(() => seen.length === 3);
        const live = [event(3), event(4)];
        await store.appendToStream(stream, [live[0]!]);
        await store.appendToStream(stream, [live[1]!]);
        await waitUntil(() => seen.length === 5);
        await new Promise((r) => setTimeout(r, 100));
        expect(seen.map((e) => e.id)).toEqual([...before, ...live].map((e) => e.id));
        expect(seen.map((e) => e.revision)).toEqual([0n, 1n, 2n, 3n, 4n]);
      } finally {
        await subscription.close();
      }
    });

    it('a subscription to some event types gets those, and the positions of the rest, in order', async () => {
      const stream = streamName('subscribe-types');
      const marker = await store.appendToStream(streamName('subscribe-types-marker'), [event(-1)]);
      const before = [event(0, 'Wanted'), event(1, 'Other'), event(2, 'Wanted')];
      const after = [event(3, 'Other'), event(4, 'Wanted')];
      await store.appendToStream(stream, before);
      const order: string[] = [];
      const wanted: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({
        fromPosition: marker.position,
        eventTypes: ['Wanted'],
        onEvent: (e) => {
          order.push(`event ${e.position}`);
          if (e.stream === stream) wanted.push(e);
        },
        onPassed: (position) => void order.push(`passed ${position}`),
      });
      try {
        await waitUntil(() => wanted.length === 2);
        const live = await store.appendToStream(stream, after);
        await waitUntil(() => wanted.length === 3);
        await waitUntil(() => order.includes(`event ${live.position}`));
        expect(wanted.map((e) => e.id)).toEqual([before[0]!.id, before[2]!.id, after[1]!.id]);
        expect(wanted.map((e) => e.data)).toEqual([before[0]!.data, before[2]!.data, after[1]!.data]);
        // Every event after the marker is told, once, in position order: delivered or passed over.
        const mine = order.filter((line) => BigInt(line.split(' ')[1]!) > marker.position && BigInt(line.split(' ')[1]!) <= live.position);
        const positions = mine.map((line) => BigInt(line.split(' ')[1]!));
        expect(positions).toEqual([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        expect(new Set(positions).size).toBe(positions.length);
        expect(mine.slice(-5).map((line) => line.split(' ')[0])).toEqual(['event', 'passed', 'event', 'passed', 'event']);
      } finally {
        await subscription.close();
      }
    });

    it('a subscription started during concurrent appends misses none and repeats none', async () => {
      const stream = streamName('subscribe-race');
      const marker = await store.appendToStream(streamName('subscribe-race-marker'), [event(-1)]);
      const writes = Array.from({ length: 40 }, (_, i) => store.appendToStream(`${stream}-${i % 4}`, [event(i)]));
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({
        fromPosition: marker.position,
        onEvent: (e) => {
          if (e.stream.startsWith(stream)) seen.push(e);
        },
      });
      try {
        await Promise.all(writes);
        await waitUntil(() => seen.length >= 40);
        await new Promise((r) => setTimeout(r, 100));
        expect(seen).toHaveLength(40);
        for (let i = 1; i < seen.length; i++) expect(seen[i]!.position > seen[i - 1]!.position).toBe(true);
      } finally {
        await subscription.close();
      }
    });
  });
}
