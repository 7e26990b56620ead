import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_RECORD_BYTES, writeRecordPayload } from '../../src/events/file-log/framing.ts';
import { jsonText, writeJson, writeUncheckedJson } from '../../src/events/file-log/json-text.ts';
import { quoteJsonString } from '../../src/signing/rfc8785.ts';
import { StagedBatch } from '../../src/events/file-log/staged-batch.ts';
import { openFileEventStore } from '../../src/events/file-log/store.ts';
import { AppendTooLargeError, type EventData, type RecordedEvent } from '../../src/events/port.ts';
import type { JsonObject, JsonValue } from '../../src/signing/rfc8785.ts';
import { silentLogger } from './helpers.ts';

/** What JSON.stringify gives for `v`, or the name of the error it throws. */
function outcome(stringify: (v: unknown) => string | undefined, v: unknown): string | undefined {
  try {
    return stringify(v);
  } catch (err) {
    return `throws ${(err as Error).constructor.name}`;
  }
}

describe('json-text: the append path serialiser', () => {
  it('writes exactly what JSON.stringify writes, and throws where it throws', () => {
    const anything = fc.anything({
      withBigInt: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withTypedArray: true,
      withSparseArray: true,
      withBoxedValues: true,
      withNullPrototype: true,
      withObjectString: true,
      withUnicodeString: true,
    });
    fc.assert(fc.property(anything, (v) => {
      expect(outcome(jsonText, v)).toBe(outcome(JSON.stringify, v));
    }), { numRuns: 5000 });
    fc.assert(fc.property(fc.jsonValue(), (v) => {
      expect(jsonText(v)).toBe(JSON.stringify(v));
    }), { numRuns: 5000 });
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    for (const v of [cycle, deep, { toJSON: () => 5 }, [undefined, () => 1], { a: undefined, b: NaN, c: -0, d: 1e21, e: 1e-7 }, Object.setPrototypeOf([1, 2], null)])
      expect(outcome(jsonText, v)).toBe(outcome(JSON.stringify, v));
  });

  it('writes into a batch, piece by piece, what JSON.stringify writes wherever that is printable ASCII, and throws where it throws', () => {
    const batch = new StagedBatch(0);
    /** What writeUncheckedJson leaves in the batch: its text when printable ASCII, else a mark. */
    const unchecked = (v: unknown): string | undefined => {
      batch.beginRecord('id', 'type');
      const start = batch.cursor;
      if (!writeUncheckedJson(batch, v, '')) return undefined;
      return batch.isPlainAscii(start, batch.cursor) ? batch.bytes.toString('latin1', start, batch.cursor) : 'not plain';
    };
    const printable = (text: string | undefined) => text === undefined || /^[\x20-\x7e]*$/.test(text);
    const anything = fc.anything({ withBigInt: true, withDate: true, withMap: true, withSparseArray: true, withBoxedValues: true, withNullPrototype: true, withObjectString: true, withUnicodeString: true });
    fc.assert(fc.property(fc.oneof(anything, fc.jsonValue()), (v) => {
      const want = outcome(JSON.stringify, v);
      const got = outcome(unchecked, v);
      // Not plain: the value holds what JSON escapes or non-ASCII text, and the record is written again, exactly.
      if (got === 'not plain') expect(!printable(want) || want!.includes('\\')).toBe(true);
      else expect(got).toBe(want);
    }), { numRuns: 5000 });
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    for (const v of [cycle, deep, { toJSON: () => 5 }, [undefined, () => 1], { a: undefined, b: NaN, c: -0, d: 1e21, e: 1e-7, f: -12.5, g: 2 ** 53 }, { 'k"ey': 'a\\b', long: 'x'.repeat(300) }, Object.defineProperty({ a: 1 }, 'toJSON', { value: () => 7, enumerable: false }), Object.setPrototypeOf([1, 2], null)])
      expect(outcome(unchecked, v)).toBe(outcome(JSON.stringify, v));
  });

  it('quotes any string as JSON.stringify does (controls, quotes, backslashes, lone and paired surrogates)', () => {
    const unit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
    fc.assert(fc.property(fc.string({ unit }), (s) => {
      expect(quoteJsonString(s)).toBe(JSON.stringify(s));
    }), { numRuns: 5000 });
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => {
      expect(quoteJsonString(s)).toBe(JSON.stringify(s));
    }), { numRuns: 2000 });
    // Long strings are written on their own (not concatenated): the same text must result.
    const long = fc.oneof(fc.string({ unit, minLength: 120, maxLength: 400 }), fc.string({ unit: 'grapheme-ascii', minLength: 120, maxLength: 400 }));
    fc.assert(fc.property(fc.array(fc.record({ a: long, b: fc.array(long, { maxLength: 3 }), c: fc.integer() }), { maxLength: 3 }), (v) => {
      expect(jsonText(v)).toBe(JSON.stringify(v));
    }), { numRuns: 1000 });
  });
});

describe('StagedBatch: JSON written straight into the batch buffer', () => {
  /** What writeJson puts into a batch for `value`, starting `shift` bytes into a record. */
  function stagedJson(batch: StagedBatch, value: unknown, shift: number): string {
    batch.beginRecord('e', 'T');
    batch.write('x'.repeat(shift));
    const start = batch.cursor;
    expect(writeJson(batch, value)).toBe(true);
    const text = batch.bytes.toString('utf8', start, batch.cursor);
    batch.endRecord();
    return text;
  }

  it('long strings, checked four bytes at a time for what JSON escapes, come out as JSON.stringify writes them', () => {
    // Long strings take the word-at-a-time escape check: any position, any alignment, any
    // character that JSON escapes (or that is not ASCII) must send them down the escaping path.
    const special = fc.constantFrom('"', '\\', '\u0000', '\u001f', '\u007f', '\u0080', 'é', '\ud800', '\udc00', '😀', ' ', '~', 'a');
    const long = fc.tuple(fc.string({ minLength: 128, maxLength: 400, unit: 'grapheme-ascii' }), fc.array(fc.tuple(fc.nat(), special), { maxLength: 3 }))
      .map(([base, inserts]) => inserts.reduce((s, [at, c]) => s.slice(0, at % (s.length + 1)) + c + s.slice(at % (s.length + 1)), base));
    const batch = new StagedBatch(0);
    fc.assert(fc.property(long, fc.nat({ max: 7 }), (text, shift) => {
      expect(stagedJson(batch, { text, n: 1 }, shift)).toBe(JSON.stringify({ text, n: 1 }));
    }), { numRuns: 3000 });
  });
});

describe('writeRecordPayload: strings written unchecked, the record checked once', () => {
  it('writes exactly JSON.stringify of the record, whatever its strings hold', () => {
    // Plain ASCII takes the unchecked way; anything else (controls, quotes, backslashes, DEL,
    // non-ASCII, lone and paired surrogates, in any field, short or long) must give the same text.
    const special = fc.constantFrom('"', '\\', '\u0000', '\n', '\u001f', '\u007f', '\u0080', '\u009f', '\u00a0', 'é', '€', '\ud800', '\udfff', '😀', ' ', '~');
    const text = (maxLength: number) =>
      fc.tuple(fc.string({ maxLength, unit: 'grapheme-ascii' }), fc.array(fc.tuple(fc.nat(), special), { maxLength: 2 }))
        .map(([base, inserts]) => inserts.reduce((s, [at, c]) => s.slice(0, at % (s.length + 1)) + c + s.slice(at % (s.length + 1)), base));
    const data: fc.Arbitrary<JsonValue> = fc.oneof(
      text(300),
      fc.record({ payload: text(400), n: fc.integer(), list: fc.array(text(20), { maxLength: 3 }) }),
      fc.jsonValue() as fc.Arbitrary<JsonValue>,
    );
    const metadata = fc.oneof(fc.constant({}), fc.record({ note: text(30) }));
    const batch = new StagedBatch(0);
    fc.assert(
      fc.property(fc.oneof(fc.nat(), fc.maxSafeNat()), fc.nat(), text(40), text(40), text(40), data, metadata, (position, revision, stream, id, type, d, m: JsonObject) => {
        batch.beginRecord(id, type);
        const start = batch.cursor;
        writeRecordPayload(batch, position, stream, revision, id, type, 1_700_000_000_123, d, m);
        const written = batch.bytes.toString('utf8', start, batch.cursor);
        batch.endRecord();
        expect(written).toBe(JSON.stringify({ p: position, s: stream, r: revision, i: id, t: type, a: 1_700_000_000_123, d, m }));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('file log append path', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'eventlog-append-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps appends whole across small group-commit bounds, and serves the same events live, read and after a restart', async () => {
    const store = await openFileEventStore({ dir, log: silentLogger, maxBatchBytes: 2000, maxSegmentBytes: 20_000 });
    const live: RecordedEvent[] = [];
    await store.subscribeToAll({ onEvent: (e) => void live.push(e) });
    const appended: EventData[] = [];
    await Promise.all(
      Array.from({ length: 12 }, async (_, w) => {
        let revision: bigint | 'no_stream' = 'no_stream';
        for (let k = 0; k < 8; k++) {
          // 1 to 3 events of up to ~3 KiB (some larger than a batch alone), non-ASCII included,
          // and one of 100 KB, more than the room a batch starts with.
          const events: EventData[] = Array.from({ length: 1 + ((w + k) % 3) }, (_, j) => ({
            id: randomUUID(),
            type: 'Noted',
            data: { w, k, j, text: 'é€😀"\\\n'.repeat((w * 7 + k * 13 + j * 29) % 60) + 'x'.repeat(((w + k + j) % 5) * 600) + (w + k + j === 0 ? 'y'.repeat(100_000) : '') },
            metadata: { w },
          }));
          appended.push(...structuredClone(events));
          revision = (await store.appendToStream(`s-${w}`, events, { expectedRevision: revision })).nextExpectedRevision;
          // The log holds what was appended, not what the caller does with its objects afterwards.
          for (const e of events) (e.data as { w: number }).w = -1;
        }
      }),
    );
    const byId = new Map(appended.map((e) => [e.id, e]));
    const check = (events: RecordedEvent[]) => {
      expect(events.map((e) => e.position)).toEqual(appended.map((_, i) => BigInt(i)));
      for (const e of events) expect({ data: e.data, metadata: e.metadata }).toEqual({ data: byId.get(e.id)!.data, metadata: byId.get(e.id)!.metadata });
    };
    const read: RecordedEvent[] = [];
    for await (const e of store.readAll()) read.push(e);
    check(read);
    await expect.poll(() => live.length).toBe(appended.length);
    check(live);
    await store.close();
    const reopened = await openFileEventStore({ dir, log: silentLogger });
    const replayed: RecordedEvent[] = [];
    for await (const e of reopened.readAll()) replayed.push(e);
    check(replayed);
    await reopened.close();
  });

  it('refuses data JSON cannot hold before reserving anything, and stages nothing of a refused append', async () => {
    const store = await openFileEventStore({ dir, log: silentLogger });
    const ok = { id: randomUUID(), type: 'T', data: 1 };
    const bad = { id: randomUUID(), type: 'T', data: undefined as unknown as EventData['data'] };
    await expect(store.appendToStream('s', [ok, bad])).rejects.toBeInstanceOf(TypeError);
    await store.appendToStream('s', [ok], { expectedRevision: 'no_stream' });
    expect((await store.readStream('s')).map((e) => e.id)).toEqual([ok.id]);
    await store.close();
    const reopened = await openFileEventStore({ dir, log: silentLogger });
    expect((await reopened.readStream('s')).map((e) => e.id)).toEqual([ok.id]);
    await reopened.close();
  });

  it('refuses an event larger than a record may be as a store with a limit per append does (AppendTooLargeError), writing nothing of that append', async () => {
    const store = await openFileEventStore({ dir, log: silentLogger });
    const small = { id: randomUUID(), type: 'T', data: { n: 1 } };
    // Many small members: refused while being written, not only when the record is closed.
    const huge = { id: randomUUID(), type: 'T', data: { rows: Array.from({ length: 700_000 }, (_, i) => `row ${i} ${'x'.repeat(90)}`) } };
    const refused = await store.appendToStream('s', [small, huge]).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AppendTooLargeError);
    expect(refused).toMatchObject({ stream: 's', limit: MAX_RECORD_BYTES });
    expect((refused as AppendTooLargeError).bytes).toBeGreaterThan(MAX_RECORD_BYTES);
    await store.appendToStream('s', [small], { expectedRevision: 'no_stream' });
    expect((await store.readStream('s')).map((e) => e.id)).toEqual([small.id]);
    await store.close();
  });
});

describe('StagedBatch: frames keep their length and type through rollback and overflow', () => {
  const stage = (batch: StagedBatch, id: string, type: string, text: string) => {
    batch.beginRecord(id, type);
    batch.write(text);
    batch.endRecord();
  };

  it('a rolled-back append leaves no frame behind, and frames moved to the next batch take their types along', () => {
    const batch = new StagedBatch(0);
    stage(batch, 'a', 'First', '{"x":1}');
    const mark = batch.mark();
    stage(batch, 'b', 'Second', '{"y":22}');
    stage(batch, 'c', 'Third', '{"z":333}');
    const next = new StagedBatch(1);
    batch.moveTo(next, mark);
    expect(batch.frameTypes).toEqual(['First']);
    expect(next.frameTypes).toEqual(['Second', 'Third']);
    expect(next.frameLengths).toHaveLength(2);
    expect(next.recordBytes).toBe(next.frameLengths[0]! + next.frameLengths[1]!);

    const before = next.mark();
    stage(next, 'd', 'Fourth', '{}');
    next.rollback(before);
    expect(next.frameTypes).toEqual(['Second', 'Third']);
    expect(next.frameLengths).toHaveLength(2);
  });
});
