import { describe, expect, it } from 'vitest';
import { ByteColumn } from './byte-column.ts';

const valueOf = (i: number) => Uint8Array.from({ length: 32 }, (_, k) => (i * 31 + k * 7) & 0xff);

describe('columns grown a chunk at a time', () => {
  it('give back every byte string pushed, across chunks of 65,536, ', () => {
    const column = new ByteColumn(32);
    const count = 2 * 65_536 + 100;
    for (let i = 0; i < count; i++) column.push(valueOf(i));
    expect(column.length).toBe(count);
    for (const i of [0, 63, 64, 65_535, 65_536, 65_537, 131_071, 131_072, count - 1]) {
      expect(column.at(i)).toEqual(valueOf(i));
    }
    expect(() => column.at(count)).toThrow(RangeError);
    expect(() => column.push(new Uint8Array(31))).toThrow(RangeError);
  });
});
