/** The fewest and the most loads over which a stream's uses lose half their weight. */
export const USES_HALF_LIFE_LOADS = 64;
export const USES_HALF_LIFE_MAX_LOADS = 8_192;

/**
 * How much each stream was loaded lately: every load counts one, and a count loses half its
 * weight over `halfLife()` loads since (LRFU, Lee et al. 2001: between least recently and least
 * frequently used). What decides which folds are worth their room (kept-folds.ts): a stream busy
 * long ago fades below one busy now, while streams taking turns weigh the same, so that the one
 * used last longest ago weighs least.
 */
export class StreamUses {
  private readonly counts = new Map<string, { weight: number; at: number }>();
  private loads = 0;
  private sweptAt = 0;

  constructor(private readonly halfLife: () => number = () => USES_HALF_LIFE_LOADS) {}

  /** Counts a load of `stream`, and answers what it weighed before it. */
  count(stream: string): number {
    const before = this.of(stream);
    this.counts.set(stream, { weight: before + 1, at: this.loads++ });
    if (this.loads - this.sweptAt >= this.halfLife()) this.sweep();
    return before;
  }

  /** What the loads of `stream` weigh now (0: none lately). */
  of(stream: string): number {
    const counted = this.counts.get(stream);
    return counted ? counted.weight * 2 ** (-(this.loads - counted.at) / this.halfLife()) : 0;
  }

  /** How many streams are weighed. */
  get size(): number {
    return this.counts.size;
  }

  /** Forgets the streams whose loads weigh less than a sixteenth: none for four half-lives, so at most five half-lives of streams are held. */
  private sweep(): void {
    this.sweptAt = this.loads;
    for (const [stream] of this.counts) if (this.of(stream) < 1 / 16) this.counts.delete(stream);
  }
}
