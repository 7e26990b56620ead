/**
 * Signed proofs that count once. A proof with a `signed_at` is good for a window either side of
 * the clock; without this, whoever holds a copy of one (a URL in a proxy's log, a shared link)
 * could use it again as often as they like until the window closes. This remembers every proof
 * accepted while it could still be accepted, so the second use of one is told apart from the
 * first.
 *
 * Memory stays bounded: at `capacity` proofs, those whose window has closed are dropped (the
 * window check refuses them anyway); if that is not enough, the ones that close first are
 * dropped too, and from then on every proof whose window closes no later than theirs is refused
 * as too old. A forgotten proof is therefore never accepted a second time: at worst a client is
 * asked for a fresher one. Remembered in this process only (see docs/operations/governance.md):
 * given `signedFrom`, the second the process started, it refuses as too old every proof signed
 * before it, which an earlier process may have accepted.
 */
export type ProofUse = 'first' | 'again' | 'too-old';

export class SingleUseProofs {
  /** Each proof accepted, by key, with the second its window closes. */
  private readonly closesAt = new Map<string, number>();
  /** Proofs whose window closes at or before this second were forgotten: refused. */
  private forgottenUpTo = -Infinity;

  constructor(
    private readonly windowSeconds: number,
    private readonly capacity = 100_000,
    signedFrom?: number,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new Error(`capacity must be a positive integer, not ${capacity}`);
    // Refused: closes <= forgottenUpTo, that is signedAt < signedFrom.
    if (signedFrom !== undefined) this.forgottenUpTo = signedFrom - 1 + windowSeconds;
  }

  /**
   * Uses the proof named `key` (what it proves, not its signature's bytes: an ECDSA signature has
   * a second valid form), signed at `signedAt`, already checked to be inside its window at `now`.
   */
  use(key: string, signedAt: number, now: number): ProofUse {
    const seen = this.check(key, signedAt);
    if (seen !== 'first') return seen;
    if (this.closesAt.size >= this.capacity) this.makeRoom(now);
    const closes = signedAt + this.windowSeconds;
    if (closes <= this.forgottenUpTo) return 'too-old';
    this.closesAt.set(key, closes);
    return 'first';
  }

  /** What use() would answer now, using nothing (for a request that must change nothing, such as HEAD). */
  check(key: string, signedAt: number): ProofUse {
    if (signedAt + this.windowSeconds <= this.forgottenUpTo) return 'too-old';
    return this.closesAt.has(key) ? 'again' : 'first';
  }

  /** How many proofs are remembered. */
  get size(): number {
    return this.closesAt.size;
  }

  private makeRoom(now: number): void {
    for (const [key, closes] of this.closesAt) if (closes < now) this.closesAt.delete(key);
    if (this.closesAt.size < this.capacity) return;
    // Still full of open windows: forget the tenth that closes first, and refuse their like from now on.
    const order = [...this.closesAt.values()].sort((a, b) => a - b);
    const threshold = order[Math.max(0, Math.ceil(order.length / 10) - 1)]!;
    for (const [key, closes] of this.closesAt) if (closes <= threshold) this.closesAt.delete(key);
    this.forgottenUpTo = Math.max(this.forgottenUpTo, threshold);
  }
}
