import { HashTrie } from './hash-trie.ts';
import { History } from './history.ts';

/**
 * A History whose latest item per key is found without walking it: a decider asks at every call
 * whether the paid call before it already wrote (a resumed saga), and walking back through a
 * store of 40,000 versions to learn that a new payment wrote nothing cost time with every write.
 * Persistent like History: appending leaves the history it was called on unchanged.
 */
export class KeyedHistory<T> {
  private constructor(
    private readonly items: History<T>,
    private readonly latest: HashTrie<T>,
    private readonly keyOf: (item: T) => string,
  ) {}

  static empty<T>(keyOf: (item: T) => string): KeyedHistory<T> {
    return new KeyedHistory(History.empty(), HashTrie.empty(), keyOf);
  }

  get length(): number {
    return this.items.length;
  }

  /** This history with `item` after its last. */
  append(item: T): KeyedHistory<T> {
    return new KeyedHistory(this.items.append(item), this.latest.set(this.keyOf(item), item), this.keyOf);
  }

  /** The latest item whose key is `key`, or undefined. */
  latestWithKey(key: string): T | undefined {
    return this.latest.get(key);
  }

  last(): T | undefined {
    return this.items.last();
  }

  /** The item at `index` (0 is the first), or undefined outside the history. */
  at(index: number): T | undefined {
    return this.items.at(index);
  }

  toArray(): T[] {
    return this.items.toArray();
  }
}
