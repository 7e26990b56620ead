import { describe, expect, it } from 'vitest';
import { ByteColumn, IntegerColumn } from './columns.ts';

const valueOf = (i: number) => Uint8Array.from({ length: 32 }, (_, k) => (i * 31 + k * 7) & 0xff);

describe('columns grown a chunk at a time', () => {
  it('give back every byte string pushed, across chunks of 65,536, and compare them in place', () => {
    const column = new ByteColumn(32);
    const count = 2 * 65_536 + 100;
    for (let i = 0; i < count; i++) column.push(valueOf(i));
    expect(column.length).toBe(count);
    for (const i of [0, 63, 64, 65_535, 65_536, 65_537, 131_071, 131_072, count - 1]) {
      expect(column.at(i)).toEqual(valueOf(i));
      expect(column.equalsAt(i, valueOf(i))).toBe(true);
      expect(column.equalsAt(i, valueOf(i + 1))).toBe(false);
    }
    expect(() => column.at(count)).toThrow(RangeError);
    expect(() => column.push(new Uint8Array(31))).toThrow(RangeError);
  });

  it('give back every integer pushed, and refuse one the width cannot hold exactly', () => {
    const small = new IntegerColumn(4);
    const large = new IntegerColumn(8);
    for (let i = 0; i < 70_000; i++) {
      small.push(i * 61_000);
      large.push(i * 2 ** 35 + 3);
    }
    for (const i of [0, 1, 65_535, 65_536, 69_999]) {
      expect(small.at(i)).toBe(i * 61_000);
      expect(large.at(i)).toBe(i * 2 ** 35 + 3);
    }
    small.push(2 ** 32 - 1);
    expect(small.at(70_000)).toBe(2 ** 32 - 1);
    expect(() => small.push(2 ** 32)).toThrow(RangeError);
    expect(() => large.push(2 ** 53)).toThrow(RangeError);
    expect(() => large.push(-1)).toThrow(RangeError);
    expect(() => large.push(1.5)).toThrow(RangeError);
  });
});
