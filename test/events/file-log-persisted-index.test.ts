import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IdList } from '../../src/events/file-log/id-list.ts';
import { EMPTY_CHECKPOINT, PersistedIndex, type IndexEntries } from '../../src/events/file-log/lmdb-index.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'persisted-index-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const uuidAt = (p: number) => `0000abcd-0000-4000-8000-${String(p).padStart(12, '0')}`;
/** Every third event has an id that is no UUID (a caller's own), kept as its text. */
const idAt = (p: number) => (p % 3 === 2 ? `caller id ${p} é` : uuidAt(p));

/** Positions from..to-1, all in one stream from revision `from`, and a short stream of one event each. */
function entries(from: number, to: number): IndexEntries {
  const count = to - from;
  const ids = new IdList();
  for (let p = from; p < to; p++) ids.push(idAt(p));
  return {
    from,
    locations: Array.from({ length: count }, (_, i) => ({ segment: 1, offset: 100 * (from + i), length: 90 })),
    ids,
    streams: [{ stream: 'a-long-stream', firstRevision: from, positions: Array.from({ length: count }, (_, i) => from + i) }],
  };
}

const checkpointAt = (events: number) => ({ ...EMPTY_CHECKPOINT, events, segment: 1, offset: 100 * events, lastId: idAt(events - 1) });

describe('the index on disk', () => {
  it('gives back every location and id, and a stream across chunks and checkpoints, and finds each id in it; a reader sees only its checkpoint', async () => {
    const writer = PersistedIndex.open(dir, { readOnly: false })!;
    await writer.write(entries(0, 100), checkpointAt(100));
    const reader = PersistedIndex.open(dir, { readOnly: true })!;
    expect(reader.checkpoint().events).toBe(100);
    await writer.write(entries(100, 150), checkpointAt(150));

    expect(writer.streamLength('a-long-stream')).toBe(150);
    expect(writer.streamLength('a-stream-never-written')).toBe(0);
    for (let p = 0; p < 150; p++) {
      expect(writer.positionAt('a-long-stream', p)).toBe(p);
      expect(writer.idAt(p)).toBe(idAt(p));
      expect(writer.revisionOfId('a-long-stream', idAt(p))).toBe(p);
      // A stream's first events are found by reading its ids, the rest through the ids table.
      expect(writer.positionOfId(idAt(p))).toBe(p < 8 ? -1 : p);
      expect(writer.location(p)).toEqual({ segment: 1, offset: 100 * p, length: 90, id: idAt(p) });
    }
    expect(writer.positionAt('a-long-stream', 150)).toBe(-1);
    expect(writer.positionOfId(uuidAt(2))).toBe(-1);
    expect(writer.revisionOfId('a-long-stream', uuidAt(2))).toBe(-1);
    expect(writer.revisionOfId('a-stream-never-written', idAt(3))).toBe(-1);

    // The reader's checkpoint ends in the stream's second chunk (revisions 64-127).
    expect(reader.streamLength('a-long-stream')).toBe(100);
    expect(reader.positionAt('a-long-stream', 99)).toBe(99);
    expect(reader.positionAt('a-long-stream', 100)).toBe(-1);
    expect(reader.positionOfId(idAt(120))).toBe(-1);
    expect(reader.revisionOfId('a-long-stream', idAt(120))).toBe(-1);
    expect(reader.revisionOfId('a-long-stream', idAt(99))).toBe(99);
    expect(reader.revisionOfId('a-long-stream', idAt(5))).toBe(5);
    await reader.close();
    await writer.close();
  });
});
