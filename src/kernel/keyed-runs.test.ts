import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyedRuns, keyWordsOfHex } from './keyed-runs.ts';
import { sha256Hex } from '../signing/hash.ts';

const SHAPE = { keyWords: 4, valueWords: 1 };
const keyOf = (i: number) => keyWordsOfHex(sha256Hex(`item ${i}`), SHAPE.keyWords);
const entriesOf = (from: number, count: number): Uint32Array => {
  const words = new Uint32Array(count * 5);
  for (let i = 0; i < count; i++) {
    words.set(keyOf(from + i), i * 5);
    words[i * 5 + 4] = from + i;
  }
  return words;
};
const runsOf = (runs: KeyedRuns) => (runs as unknown as { runs: Uint32Array[] }).runs;

describe('keyed runs', () => {
  it('find every entry added, in whatever batches, and nothing else; their runs stay few', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 12 }), (batches) => {
        let runs = KeyedRuns.empty(SHAPE);
        let next = 0;
        for (const size of batches) {
          runs = runs.with(entriesOf(next, size));
          next += size;
          expect(runsOf(runs).length).toBeLessThanOrEqual(1 + Math.log2(Math.max(1, runs.size)));
        }
        expect(runs.size).toBe(next);
        for (let i = 0; i < next; i++) expect(runs.find(keyOf(i))?.[0]).toBe(i);
        expect(runs.find(keyOf(next))).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  });

  it('are immutable: adding makes new runs and leaves the old ones as they were', () => {
    const before = KeyedRuns.empty(SHAPE).with(entriesOf(0, 2));
    const after = before.with(entriesOf(2, 1));
    expect(before.find(keyOf(2))).toBeUndefined();
    expect(after.find(keyOf(2))?.[0]).toBe(2);
    expect(before.size).toBe(2);
  });

  it('read back from their bytes as they were written, a chunk at a time', () => {
    let runs = KeyedRuns.empty(SHAPE);
    for (let batch = 0; batch < 5; batch++) runs = runs.with(entriesOf(batch * 37, 37));
    const chunks = [...runs.bytesInOrder(16)];
    expect(chunks.length).toBe(Math.ceil(185 / 16));
    expect(chunks.every((chunk) => chunk.length <= 16 * 20)).toBe(true);
    const readBack = KeyedRuns.ofBytes(SHAPE, chunks.map((chunk) => Buffer.from(chunk.toString('base64'), 'base64')));
    expect(Buffer.concat([...readBack.bytesInOrder(1000)])).toEqual(Buffer.concat(chunks));
    for (let i = 0; i < 185; i++) expect(readBack.find(keyOf(i))?.[0]).toBe(i);
  });

  it('refuse bytes that are not whole entries in key order, once each, and a key added twice', () => {
    const bytes = Buffer.concat([...KeyedRuns.empty(SHAPE).with(entriesOf(0, 3)).bytesInOrder(10)]);
    expect(() => KeyedRuns.ofBytes(SHAPE, [bytes.subarray(0, 50)])).toThrow(/whole number/);
    expect(() => KeyedRuns.ofBytes(SHAPE, [bytes.subarray(20, 40), bytes.subarray(0, 20)])).toThrow(/out of order/);
    expect(() => KeyedRuns.ofBytes(SHAPE, [bytes.subarray(0, 20), bytes.subarray(0, 20)])).toThrow(/repeated/);
    const runs = KeyedRuns.empty(SHAPE).with(entriesOf(0, 3));
    expect(() => runs.with(entriesOf(2, 2))).toThrow(/added twice/);
    expect(() => KeyedRuns.empty(SHAPE).with(new Uint32Array([...entriesOf(5, 1), ...entriesOf(5, 1)]))).toThrow(/added twice/);
    expect(() => runs.with(new Uint32Array(7))).toThrow(/whole entries/);
    expect(runs.size).toBe(3);
  });
});
