/**
 * An append-only sequence that a decider's `evolve` extends in constant time without changing
 * the state it was given: each longer history shares the items of the shorter one (a persistent
 * list, newest first). Copying an array or a map at every event made folding a stream of n
 * events cost n^2 / 2 copies, so a memory store or a catalogue entry with a few thousand paid
 * writes took seconds a call; now a fold is linear (KeyedHistory adds the lookup a call makes).
 */
export class History<T> {
  private constructor(
    private readonly newest: T | undefined,
    private readonly before: History<T> | undefined,
    readonly length: number,
  ) {}

  private static readonly EMPTY = new History<never>(undefined, undefined, 0);

  static empty<T>(): History<T> {
    return History.EMPTY;
  }

  /** This history with `item` after its last. */
  append(item: T): History<T> {
    return new History(item, this, this.length + 1);
  }

  /** The last item, or undefined when empty. */
  last(): T | undefined {
    return this.newest;
  }

  /** The item at `index` (0 is the first), or undefined outside the history. */
  at(index: number): T | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) return undefined;
    let node: History<T> = this;
    for (let steps = this.length - 1 - index; steps > 0; steps--) node = node.before!;
    return node.newest;
  }

  /** The items, first to last. */
  toArray(): T[] {
    const items = new Array<T>(this.length);
    let node: History<T> = this;
    for (let i = this.length - 1; i >= 0; i--, node = node.before!) items[i] = node.newest as T;
    return items;
  }
}
