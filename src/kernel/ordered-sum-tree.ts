/**
 * A persistent sorted collection: values ordered by (rank, key), each with a weight, in an AVL
 * tree (Adel'son-Vel'skii and Landis, 1962) whose every node also holds its subtree's size and the
 * sum of its weights. `insert` and `delete` copy only the path to their item (at most about
 * 1.44 log2 n nodes) and leave the tree they were called on unchanged; the sum of the weights of
 * the items ranked above a bound is one walk down the tree, and the items above a bound are
 * listed in order in time proportional to how many there are.
 *
 * A spend governor's open leases live here, ranked by expiry: what a window holds reserved at
 * `now` is the sum of the amounts of its open leases expiring after `now`. Kept in a hash trie,
 * that sum read every open lease once any of them had expired, and settling the lease that
 * expired first looked for the next one among all: folding an agent that settled 20,000 leases
 * in the order it reserved them took 45-52 s.
 *
 * Written here for the same reason as hash-trie.ts: the one structure a decider needs, without a
 * package that costs the start of every process.
 *
 * Weights and sums are kept as numbers while they are safe integers, and as bigints only past
 * that (see Amount): every insert makes a new node at each level of the path, each with a sum,
 * and bigint arithmetic allocates every result. Folding an agent of 57,000 leases spent about a
 * third of its time there.
 */
interface Node<V> {
  readonly rank: number;
  readonly key: string;
  readonly value: V;
  readonly weight: Amount;
  readonly left: Node<V> | undefined;
  readonly right: Node<V> | undefined;
  readonly height: number;
  readonly size: number;
  /** Of the weights of this node and both subtrees. */
  readonly sum: Amount;
}

/** An exact integer: a number while it is a safe integer, a bigint beyond. */
type Amount = number | bigint;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function amountOf(weight: bigint): Amount {
  return weight <= MAX_SAFE && weight >= -MAX_SAFE ? Number(weight) : weight;
}

function plus(a: Amount, b: Amount): Amount {
  if (typeof a === 'number' && typeof b === 'number') {
    const sum = a + b;
    if (Number.isSafeInteger(sum)) return sum;
  }
  return BigInt(a) + BigInt(b);
}

type Item<V> = Pick<Node<V>, 'rank' | 'key' | 'value' | 'weight'>;

export class OrderedSumTree<V> {
  private static readonly EMPTY = new OrderedSumTree<never>(undefined);

  private constructor(private readonly root: Node<V> | undefined) {}

  static empty<V>(): OrderedSumTree<V> {
    return OrderedSumTree.EMPTY as OrderedSumTree<V>;
  }

  /**
   * The tree of `items`, which must be in strictly ascending order of (rank, key): built balanced
   * in one pass (a state read back from a snapshot), not by as many inserts.
   */
  static ofOrdered<V>(items: ReadonlyArray<{ rank: number; key: string; value: V; weight: bigint }>): OrderedSumTree<V> {
    for (let i = 1; i < items.length; i++) {
      const [before, after] = [items[i - 1]!, items[i]!];
      if (before.rank > after.rank || (before.rank === after.rank && before.key >= after.key)) throw new Error(`ofOrdered: item ${i} is not after item ${i - 1}`);
    }
    const build = (from: number, to: number): Node<V> | undefined => {
      if (from >= to) return undefined;
      const middle = (from + to) >>> 1;
      const item = items[middle]!;
      return node({ ...item, weight: amountOf(item.weight) }, build(from, middle), build(middle + 1, to));
    };
    return items.length === 0 ? OrderedSumTree.empty() : new OrderedSumTree(build(0, items.length));
  }

  get size(): number {
    return this.root?.size ?? 0;
  }

  /** This tree with `value` at (rank, key), in place of any value there. */
  insert(rank: number, key: string, value: V, weight: bigint): OrderedSumTree<V> {
    return new OrderedSumTree(inserted(this.root, { rank, key, value, weight: amountOf(weight) }));
  }

  /** This tree without the value at (rank, key); this very tree when there is none. */
  delete(rank: number, key: string): OrderedSumTree<V> {
    const root = deleted(this.root, rank, key);
    return root === this.root ? this : new OrderedSumTree(root);
  }

  /** The sum of the weights of the values ranked above `bound` (strictly). */
  sumAbove(bound: number): bigint {
    let sum: Amount = 0;
    for (let node = this.root; node; ) {
      if (node.rank > bound) {
        sum = plus(plus(sum, node.weight), node.right?.sum ?? 0);
        node = node.left;
      } else {
        node = node.right;
      }
    }
    return BigInt(sum);
  }

  /** The values ranked above `bound` (strictly), in order of (rank, key). */
  valuesAbove(bound: number): V[] {
    const values: V[] = [];
    collectAbove(this.root, bound, values);
    return values;
  }
}

const heightOf = <V>(node: Node<V> | undefined): number => node?.height ?? 0;

function order(rank: number, key: string, node: Node<unknown>): number {
  if (rank !== node.rank) return rank < node.rank ? -1 : 1;
  return key < node.key ? -1 : key > node.key ? 1 : 0;
}

function node<V>(item: Item<V>, left: Node<V> | undefined, right: Node<V> | undefined): Node<V> {
  return {
    rank: item.rank,
    key: item.key,
    value: item.value,
    weight: item.weight,
    left,
    right,
    height: Math.max(heightOf(left), heightOf(right)) + 1,
    size: (left?.size ?? 0) + (right?.size ?? 0) + 1,
    sum: plus(plus(item.weight, left?.sum ?? 0), right?.sum ?? 0),
  };
}

/** `item` over two subtrees whose heights differ by at most two, rotated back into balance. */
function balanced<V>(item: Item<V>, left: Node<V> | undefined, right: Node<V> | undefined): Node<V> {
  const lean = heightOf(left) - heightOf(right);
  if (lean > 1) {
    const l = left!;
    if (heightOf(l.left) >= heightOf(l.right)) return node(l, l.left, node(item, l.right, right));
    const lr = l.right!;
    return node(lr, node(l, l.left, lr.left), node(item, lr.right, right));
  }
  if (lean < -1) {
    const r = right!;
    if (heightOf(r.right) >= heightOf(r.left)) return node(r, node(item, left, r.left), r.right);
    const rl = r.left!;
    return node(rl, node(item, left, rl.left), node(r, rl.right, r.right));
  }
  return node(item, left, right);
}

function inserted<V>(at: Node<V> | undefined, item: Item<V>): Node<V> {
  if (!at) return node(item, undefined, undefined);
  const side = order(item.rank, item.key, at);
  if (side === 0) return node(item, at.left, at.right);
  return side < 0 ? balanced(at, inserted(at.left, item), at.right) : balanced(at, at.left, inserted(at.right, item));
}

function deleted<V>(at: Node<V> | undefined, rank: number, key: string): Node<V> | undefined {
  if (!at) return undefined;
  const side = order(rank, key, at);
  if (side < 0) {
    const left = deleted(at.left, rank, key);
    return left === at.left ? at : balanced(at, left, at.right);
  }
  if (side > 0) {
    const right = deleted(at.right, rank, key);
    return right === at.right ? at : balanced(at, at.left, right);
  }
  if (!at.left) return at.right;
  if (!at.right) return at.left;
  // Two children: the next item in order takes this node's place.
  let next = at.right;
  while (next.left) next = next.left;
  return balanced(next, at.left, deleted(at.right, next.rank, next.key));
}

function collectAbove<V>(at: Node<V> | undefined, bound: number, into: V[]): void {
  if (!at) return;
  if (at.rank > bound) {
    collectAbove(at.left, bound, into);
    into.push(at.value);
  }
  collectAbove(at.right, bound, into);
}
