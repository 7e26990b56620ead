import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fnv1a32, HashTrie } from './hash-trie.ts';

type Op = { set: string; value: number } | { delete: string };

const ops = (keys: fc.Arbitrary<string>) =>
  fc.array(fc.oneof(fc.record({ set: keys, value: fc.integer() }), fc.record({ delete: keys })), { maxLength: 300 });

function replay(ops: Op[], hashOf?: (key: string) => number): { trie: HashTrie<number>; map: Map<string, number> } {
  let trie = HashTrie.empty<number>(hashOf);
  const map = new Map<string, number>();
  for (const op of ops) {
    if ('set' in op) {
      trie = trie.set(op.set, op.value);
      map.set(op.set, op.value);
    } else {
      trie = trie.delete(op.delete);
      map.delete(op.delete);
    }
  }
  return { trie, map };
}

function expectSame(trie: HashTrie<number>, map: Map<string, number>, probes: string[]): void {
  expect(trie.size).toBe(map.size);
  expect(new Map(trie.entries())).toEqual(map);
  expect([...trie.values()].sort()).toEqual([...map.values()].sort());
  for (const key of probes) {
    expect(trie.get(key)).toBe(map.get(key));
    expect(trie.has(key)).toBe(map.has(key));
  }
}

describe('HashTrie, the persistent map of decider states', () => {
  it('answers like a Map after any sequence of sets and deletes', () => {
    const keys = fc.oneof(fc.string({ maxLength: 6 }), fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 1, maxLength: 3 }));
    fc.assert(
      fc.property(ops(keys), fc.array(keys, { maxLength: 20 }), (sequence, probes) => {
        const { trie, map } = replay(sequence);
        expectSame(trie, map, [...probes, ...map.keys()]);
      }),
      { numRuns: 400 },
    );
  });

  it('answers like a Map when many keys share a hash, in part or in whole', () => {
    // Few distinct hashes force collisions and deep shared prefixes of branches; `partial` puts
    // every key in slot 0 or slot 31 of each level (the bit of slot 31 is negative as an int32).
    const keys = fc.string({ minLength: 0, maxLength: 4 });
    const partial = (key: string) => {
      const h = fnv1a32(key);
      let hash = 0;
      for (let level = 0; level < 7; level++) if ((h >>> level) & 1) hash |= 31 << (5 * level);
      return hash >>> 0;
    };
    const whole = (key: string) => key.length % 3;
    fc.assert(
      fc.property(ops(keys), fc.constantFrom(partial, whole), (sequence, hashOf) => {
        const { trie, map } = replay(sequence, hashOf);
        expectSame(trie, map, [...map.keys(), 'absent-key']);
      }),
      { numRuns: 400 },
    );
  });

  it('never changes a map it was derived from', () => {
    let base = HashTrie.empty<number>();
    for (let i = 0; i < 2_000; i++) base = base.set(`lease-${i}`, i);
    const changed = base.set('lease-7', -7).delete('lease-8').set('new', 1);
    expect(base.get('lease-7')).toBe(7);
    expect(base.get('lease-8')).toBe(8);
    expect(base.has('new')).toBe(false);
    expect(base.size).toBe(2_000);
    expect(changed.get('lease-7')).toBe(-7);
    expect(changed.has('lease-8')).toBe(false);
    expect(changed.size).toBe(2_000);
  });

  it('returns the same map when nothing changes, so a fold keeps its identity', () => {
    const map = HashTrie.empty<number>().set('a', 1).set('b', 2);
    expect(map.set('a', 1)).toBe(map);
    expect(map.delete('absent')).toBe(map);
    expect(HashTrie.empty<number>().delete('a').size).toBe(0);
  });
});
