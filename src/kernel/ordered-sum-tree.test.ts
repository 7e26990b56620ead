import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OrderedSumTree } from './ordered-sum-tree.ts';

interface Item {
  rank: number;
  key: string;
  weight: bigint;
}

/** What the tree must answer, by definition: a list read whole. */
const byOrder = (a: Item, b: Item): number => a.rank - b.rank || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const above = (items: Item[], bound: number): Item[] => items.filter((i) => i.rank > bound).sort(byOrder);

/**
 * Weights small, near the largest safe integer (whose sums cross it), and far past it: the tree
 * keeps sums as numbers while they are safe integers and must stay exact on both sides.
 */
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const weight = fc.oneof(fc.bigInt({ min: 0n, max: 1_000_000n }), fc.bigInt({ min: SAFE - 1_000n, max: SAFE }), fc.bigInt({ min: 0n, max: 10n ** 20n }));

const operation = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), rank: fc.integer({ min: 0, max: 30 }), key: fc.constantFrom('a', 'b', 'c', 'd', 'e'), weight }),
  fc.record({ kind: fc.constant('delete' as const), rank: fc.integer({ min: 0, max: 30 }), key: fc.constantFrom('a', 'b', 'c', 'd', 'e') }),
);

describe('ordered sum tree', () => {
  it('answers sums and ordered values above any bound as a list read whole would, after any inserts and deletes', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 200 }), fc.array(fc.integer({ min: -1, max: 31 }), { minLength: 1, maxLength: 5 }), (operations, bounds) => {
        let tree = OrderedSumTree.empty<Item>();
        let items: Item[] = [];
        for (const op of operations) {
          items = items.filter((i) => i.rank !== op.rank || i.key !== op.key);
          if (op.kind === 'insert') {
            const item = { rank: op.rank, key: op.key, weight: op.weight };
            items.push(item);
            tree = tree.insert(op.rank, op.key, item, op.weight);
          } else {
            tree = tree.delete(op.rank, op.key);
          }
          expect(tree.size).toBe(items.length);
        }
        for (const bound of bounds) {
          expect(tree.valuesAbove(bound)).toEqual(above(items, bound));
          expect(tree.sumAbove(bound)).toBe(above(items, bound).reduce((sum, i) => sum + i.weight, 0n));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('leaves the tree it was called on unchanged', () => {
    const one = OrderedSumTree.empty<string>().insert(5, 'a', 'five', 5n);
    const two = one.insert(7, 'b', 'seven', 7n);
    const none = two.delete(5, 'a').delete(7, 'b');
    expect(one.valuesAbove(0)).toEqual(['five']);
    expect(two.valuesAbove(0)).toEqual(['five', 'seven']);
    expect(none.size).toBe(0);
    expect(two.delete(6, 'x')).toBe(two);
  });

  it('stays balanced whatever the order of the ranks: 100,000 in order, then half of them deleted in order', () => {
    // A tree that did not rebalance would be a list 100,000 deep here, and its recursion would overflow the stack.
    let tree = OrderedSumTree.empty<number>();
    for (let rank = 0; rank < 100_000; rank++) tree = tree.insert(rank, '', rank, 1n);
    for (let rank = 0; rank < 50_000; rank++) tree = tree.delete(rank, '');
    expect(tree.size).toBe(50_000);
    expect(tree.sumAbove(89_999)).toBe(10_000n);
    expect(tree.valuesAbove(99_997)).toEqual([99_998, 99_999]);
  });
});

describe('ordered sum tree built from ordered items', () => {
  it('answers as the same items inserted one by one, and stays balanced under inserts and deletes after', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ rank: fc.integer({ min: 0, max: 40 }), key: fc.constantFrom('a', 'b', 'c', 'd'), weight }), { maxLength: 150 }), fc.array(operation, { maxLength: 60 }), (drawn, operations) => {
        const unique = new Map(drawn.map((item) => [`${item.rank}/${item.key}`, item]));
        let items: Item[] = [...unique.values()].sort(byOrder);
        let built = OrderedSumTree.ofOrdered(items.map((item) => ({ rank: item.rank, key: item.key, value: item, weight: item.weight })));
        let inserted = items.reduce((tree, item) => tree.insert(item.rank, item.key, item, item.weight), OrderedSumTree.empty<Item>());
        expect(built.size).toBe(items.length);
        for (const op of operations) {
          items = items.filter((i) => i.rank !== op.rank || i.key !== op.key);
          if (op.kind === 'insert') items.push({ rank: op.rank, key: op.key, weight: op.weight });
          built = op.kind === 'insert' ? built.insert(op.rank, op.key, items.at(-1)!, op.weight) : built.delete(op.rank, op.key);
          inserted = op.kind === 'insert' ? inserted.insert(op.rank, op.key, items.at(-1)!, op.weight) : inserted.delete(op.rank, op.key);
        }
        for (const bound of [-1, 0, 10, 20, 39, 41]) {
          expect(built.sumAbove(bound)).toBe(above(items, bound).reduce((sum, item) => sum + item.weight, 0n));
          expect(built.valuesAbove(bound)).toEqual(inserted.valuesAbove(bound));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('refuses items out of order, or one (rank, key) twice', () => {
    const item = (rank: number, key: string) => ({ rank, key, value: key, weight: 1n });
    expect(() => OrderedSumTree.ofOrdered([item(2, 'a'), item(1, 'a')])).toThrow(/not after/);
    expect(() => OrderedSumTree.ofOrdered([item(1, 'b'), item(1, 'a')])).toThrow(/not after/);
    expect(() => OrderedSumTree.ofOrdered([item(1, 'a'), item(1, 'a')])).toThrow(/not after/);
    expect(OrderedSumTree.ofOrdered([item(1, 'a'), item(1, 'b'), item(2, 'a')]).valuesAbove(0)).toEqual(['a', 'b', 'a']);
  });
});
