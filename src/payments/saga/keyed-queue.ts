/**
 * Runs work for one key at a time, in arrival order, and forgets a key once its queue drains:
 * the saga serialises the calls that carry one payment, so a concurrent duplicate waits for the
 * first and then replays its result.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.then(work);
    const tail = current.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    try {
      return await current;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys with work queued or running: bounded by the calls in flight. */
  get size(): number {
    return this.tails.size;
  }
}

/** A set that keeps at most `capacity` members, forgetting the oldest first. */
export class BoundedRecentSet {
  private readonly members = new Set<string>();

  constructor(private readonly capacity: number) {}

  add(member: string): void {
    this.members.delete(member);
    this.members.add(member);
    if (this.members.size > this.capacity) this.members.delete(this.members.values().next().value!);
  }

  has(member: string): boolean {
    return this.members.has(member);
  }

  delete(member: string): void {
    this.members.delete(member);
  }

  get size(): number {
    return this.members.size;
  }
}
