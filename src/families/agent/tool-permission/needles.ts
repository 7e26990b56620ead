/**
 * Which of a fixed list of strings occur in a text (Aho-Corasick over UTF-16 code units). The
 * cross-tool check asks it of every tool description for every name of the agent's other
 * servers; one `includes` per pair was description length x names (90 descriptions of 10,000
 * characters against 1,000 names took 5-15 s). This is linear in the text, plus the trie.
 */
export class NeedleSet {
  private readonly next: Array<Map<number, number>> = [new Map()];
  private readonly fail: number[] = [0];
  /** Indices of the needles that end at each node. */
  private readonly ends: number[][] = [[]];
  /** The nearest node on the fail chain that ends a needle, or 0 for none. */
  private readonly endLink: number[] = [0];

  constructor(needles: readonly string[]) {
    needles.forEach((needle, index) => {
      let node = 0;
      for (let i = 0; i < needle.length; i++) {
        const c = needle.charCodeAt(i);
        let child = this.next[node]!.get(c);
        if (child === undefined) {
          child = this.next.length;
          this.next.push(new Map());
          this.fail.push(0);
          this.ends.push([]);
          this.endLink.push(0);
          this.next[node]!.set(c, child);
        }
        node = child;
      }
      if (needle.length > 0) this.ends[node]!.push(index);
    });
    // Breadth first, so a node's fail target is settled before its children are.
    const queue = [...this.next[0]!.values()];
    for (let q = 0; q < queue.length; q++) {
      const node = queue[q]!;
      for (const [c, child] of this.next[node]!) {
        this.fail[child] = this.step(this.fail[node]!, c, child);
        const target = this.fail[child]!;
        this.endLink[child] = this.ends[target]!.length > 0 ? target : this.endLink[target]!;
        queue.push(child);
      }
    }
  }

  /** From `node`, the state after reading `c`; `self` is never its own fail target. */
  private step(node: number, c: number, self = -1): number {
    for (;;) {
      const child = this.next[node]!.get(c);
      if (child !== undefined && child !== self) return child;
      if (node === 0) return 0;
      node = this.fail[node]!;
    }
  }

  /** Indices of the needles found in `text`. */
  foundIn(text: string): Set<number> {
    const found = new Set<number>();
    // A node whose ends were collected once need not be walked again for this text.
    const collected = new Set<number>();
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      node = this.step(node, text.charCodeAt(i));
      for (let at = this.ends[node]!.length > 0 ? node : this.endLink[node]!; at !== 0 && !collected.has(at); at = this.endLink[at]!) {
        collected.add(at);
        for (const index of this.ends[at]!) found.add(index);
      }
    }
    return found;
  }
}
