import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KeyedHistory } from './keyed-history.ts';

type Item = { key: string; n: number };

describe('KeyedHistory, a History with its latest item per key', () => {
  it('answers like the array of the same items: length, at, last, toArray, and the latest item of a key', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e'), { maxLength: 60 }), fc.constantFrom('a', 'b', 'c', 'd', 'e', 'z'), fc.integer({ min: -2, max: 62 }), (keys, wanted, index) => {
        const items: Item[] = keys.map((key, n) => ({ key, n }));
        const history = items.reduce((h, item) => h.append(item), KeyedHistory.empty<Item>((item) => item.key));
        expect(history.length).toBe(items.length);
        expect(history.toArray()).toEqual(items);
        expect(history.last()).toBe(items.at(-1));
        expect(history.at(index)).toBe(index >= 0 ? items[index] : undefined);
        expect(history.latestWithKey(wanted)).toBe(items.findLast((item) => item.key === wanted));
      }),
      { numRuns: 500 },
    );
  });

  it('never changes a history it was appended to', () => {
    const base = KeyedHistory.empty<Item>((item) => item.key).append({ key: 'a', n: 1 });
    const later = base.append({ key: 'a', n: 2 }).append({ key: 'b', n: 3 });
    expect(base.latestWithKey('a')).toEqual({ key: 'a', n: 1 });
    expect(base.latestWithKey('b')).toBeUndefined();
    expect(later.latestWithKey('a')).toEqual({ key: 'a', n: 2 });
    expect(base.length).toBe(1);
  });
});
