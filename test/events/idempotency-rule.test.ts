import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openFileEventStore } from '../../src/events/file-log/store.ts';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision } from '../../src/events/port.ts';
import { silentLogger } from './helpers.ts';

/**
 * The embedded stores against a transcription of EventStoreDB's commit check (its index writer),
 * on random appends to two streams, each with ids drawn from a pool of its own of four, so that
 * replays, conflicts and ids met before at the stream's end all happen. The server decides:
 * - "exists" on an absent stream: a conflict;
 * - "any" or "exists": when the first id is in the stream (its latest event of that id: the
 *   server's cache holds the latest event of each id, the embedded stores ask the stream), the
 *   same append if all its ids follow from there, else a conflict; when it is not, the events are
 *   appended. An id reused in another stream is left out: there the server answers from its
 *   cache, at best effort, and so do the embedded stores;
 * - an exact revision (or "no stream", -1) behind the stream's last: the same append if its ids
 *   are the stream's from the next revision on, else a conflict;
 * - one past the stream's last: a conflict; at it: appended, ids not looked at.
 */
type Outcome = { kind: 'appended' | 'replayed'; last: number } | { kind: 'conflict' };

function serverDecision(stream: readonly string[], ids: readonly string[], expected: ExpectedRevision): Outcome {
  const current = stream.length - 1;
  const sameFrom = (start: number): boolean => ids.every((id, i) => stream[start + i] === id);
  if (expected === 'exists' && stream.length === 0) return { kind: 'conflict' };
  if (expected === 'any' || expected === 'exists') {
    const at = stream.lastIndexOf(ids[0]!);
    if (at < 0) return { kind: 'appended', last: current + ids.length };
    return sameFrom(at) ? { kind: 'replayed', last: at + ids.length - 1 } : { kind: 'conflict' };
  }
  const after = expected === 'no_stream' ? -1 : Number(expected);
  if (after < current) return sameFrom(after + 1) ? { kind: 'replayed', last: after + ids.length } : { kind: 'conflict' };
  return after === current ? { kind: 'appended', last: current + ids.length } : { kind: 'conflict' };
}

const STREAMS = ['idempotency-a', 'idempotency-b'];
const POOLS = new Map(STREAMS.map((stream) => [stream, Array.from({ length: 4 }, () => randomUUID())]));

const expectedArbitrary = fc.oneof(fc.constantFrom<ExpectedRevision>('any', 'exists', 'no_stream'), fc.integer({ min: 0, max: 7 }).map((n): ExpectedRevision => BigInt(n)));
const appendArbitrary = fc.constantFrom(...STREAMS).chain((stream) =>
  fc.record({ stream: fc.constant(stream), ids: fc.array(fc.constantFrom(...POOLS.get(stream)!), { minLength: 1, maxLength: 3 }), expected: expectedArbitrary }),
);

async function outcomeOf(store: EventStore, stream: string, ids: readonly string[], expected: ExpectedRevision, lengthBefore: number): Promise<Outcome> {
  try {
    const result = await store.appendToStream(stream, ids.map((id) => ({ id, type: 'Noted', data: {} })), { expectedRevision: expected });
    const last = Number(result.nextExpectedRevision);
    return { kind: last >= lengthBefore ? 'appended' : 'replayed', last };
  } catch (err) {
    if (err instanceof WrongExpectedRevisionError) return { kind: 'conflict' };
    throw err;
  }
}

describe('idempotency: the embedded stores decide as EventStoreDB does', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'idempotency-rule-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const stores: Array<[string, (run: number) => Promise<EventStore>]> = [
    ['memory', async () => createMemoryEventStore()],
    // Tiny index checkpoints, so that lookups go to the index on disk as well as to its tail.
    ['file log', async (run) => openFileEventStore({ dir: join(dir, `run-${run}`), log: silentLogger, maxSegmentBytes: 2048, indexCheckpointEvents: 4 })],
  ];

  it.each(stores)('%s store', async (_, open) => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(appendArbitrary, { minLength: 1, maxLength: 25 }), async (appends) => {
        const store = await open(run++);
        const model = new Map<string, string[]>(STREAMS.map((s) => [s, []]));
        try {
          for (const { stream, ids, expected } of appends) {
            const kept = model.get(stream)!;
            const wanted = serverDecision(kept, ids, expected);
            expect(await outcomeOf(store, stream, ids, expected, kept.length)).toEqual(wanted);
            if (wanted.kind === 'appended') kept.push(...ids);
          }
          for (const stream of STREAMS) expect((await store.readStream(stream)).map((e) => e.id)).toEqual(model.get(stream));
        } finally {
          await store.close();
        }
      }),
      { numRuns: 150 },
    );
  });
});
