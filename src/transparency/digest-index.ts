/**
 * Result digest -> leaf index, for proofs asked by a result's sha256: an open-addressing table
 * of [48-bit digest prefix, leaf index + 1] pairs in one Float64Array. A Map of hundreds of
 * thousands of entries cost about 70 bytes each and most of a start's garbage collection; here
 * an entry is 16 bytes at most half full. Only a digest's first leaf is kept (the one a lookup
 * answers): the same result signed again adds nothing, so repeats never lengthen a probe run. A
 * prefix may still repeat (two digests that share 48 bits): a candidate is confirmed against
 * the full digest.
 */
export class DigestIndex {
  private slots = new Float64Array(2 * 1024);
  private mask = 1023;
  private count = 0;

  /** `isDigestOf` confirms a candidate leaf against the full digest (the caller keeps the digests). */
  constructor(private readonly isDigestOf: (leaf: number, digest: Uint8Array) => boolean) {}

  /** Adds `leaf` under `digest`, unless an earlier leaf has that digest. */
  add(digest: Uint8Array, leaf: number): void {
    const prefix = digestPrefix(digest);
    // Room first, so that the probe below ends where the leaf goes.
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    for (let slot = prefix & this.mask; ; slot = (slot + 1) & this.mask) {
      const stored = this.slots[2 * slot + 1]!;
      if (stored !== 0) {
        if (this.slots[2 * slot] === prefix && this.isDigestOf(stored - 1, digest)) return;
        continue;
      }
      this.slots[2 * slot] = prefix;
      this.slots[2 * slot + 1] = leaf + 1;
      this.count++;
      return;
    }
  }

  /** The first leaf with this digest. */
  find(digest: Uint8Array): number | undefined {
    const prefix = digestPrefix(digest);
    for (let slot = prefix & this.mask; ; slot = (slot + 1) & this.mask) {
      const stored = this.slots[2 * slot + 1]!;
      if (stored === 0) return undefined;
      if (this.slots[2 * slot] === prefix && this.isDigestOf(stored - 1, digest)) return stored - 1;
    }
  }

  private place(slots: Float64Array, mask: number, prefix: number, stored: number): void {
    let slot = prefix & mask;
    while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
    slots[2 * slot] = prefix;
    slots[2 * slot + 1] = stored;
  }

  private grow(): void {
    const old = this.slots;
    const mask = 2 * (this.mask + 1) - 1;
    const slots = new Float64Array(2 * (mask + 1));
    for (let i = 0; i < old.length; i += 2) if (old[i + 1] !== 0) this.place(slots, mask, old[i]!, old[i + 1]!);
    this.slots = slots;
    this.mask = mask;
  }
}

/** The first 48 bits of a digest, as a number (exact: below 2^53). */
function digestPrefix(digest: Uint8Array): number {
  return (digest[0]! * 0x10000 + digest[1]! * 0x100 + digest[2]!) * 0x1000000 + ((digest[3]! << 16) | (digest[4]! << 8) | digest[5]!);
}
