import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { History } from './history.ts';

describe('History, the append-only sequence of decider states', () => {
  it('answers like the array of the same items: length, at, last, toArray', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 60 }), fc.integer({ min: -3, max: 65 }), (items, index) => {
        const history = items.reduce((h, item) => h.append(item), History.empty<number>());
        expect(history.length).toBe(items.length);
        expect(history.toArray()).toEqual(items);
        expect(history.last()).toBe(items.at(-1));
        expect(history.at(index)).toBe(index >= 0 ? items[index] : undefined);
      }),
      { numRuns: 500 },
    );
    expect(History.empty<number>().append(1).at(0.5)).toBeUndefined();
  });

  it('never changes a history it was appended to: two states evolved from one stay apart', () => {
    const base = History.empty<string>().append('a').append('b');
    const left = base.append('left');
    const right = base.append('right').append('more');
    expect(base.toArray()).toEqual(['a', 'b']);
    expect(left.toArray()).toEqual(['a', 'b', 'left']);
    expect(right.toArray()).toEqual(['a', 'b', 'right', 'more']);
    expect(History.empty<string>().length).toBe(0);
  });
});
