/**
 * Result digest -> leaf index, for proofs asked by a result's sha256: an open-addressing table
 * of leaf indexes (plus one; 0 is an empty slot) in one Uint32Array, placed by the digest's
 * first 32 bits and at most half full: 8-16 bytes a leaf. The digests themselves stay with the
 * caller, which confirms every candidate (`isDigestOf`), so the table holds no copy of them; a
 * table of [48-bit prefix, leaf] pairs took 32-64 bytes a leaf, and a Map about 70. Only a
 * digest's first leaf is kept (the one a lookup answers): the same result signed again adds
 * nothing, so repeats never lengthen a probe run.
 */
export class DigestIndex {
  private slots = new Uint32Array(1024);
  private count = 0;

  /**
   * `isDigestOf` confirms a candidate leaf against a full digest; `digestOf` gives a leaf's
   * digest when the table grows (the caller keeps the digests).
   */
  constructor(
    private readonly isDigestOf: (leaf: number, digest: Uint8Array) => boolean,
    private readonly digestOf: (leaf: number) => Uint8Array,
  ) {}

  /** Adds `leaf` under `digest`, unless an earlier leaf has that digest. */
  add(digest: Uint8Array, leaf: number): void {
    // Room first, so that the probe below ends where the leaf goes.
    if ((this.count + 1) * 2 > this.slots.length) this.grow();
    const mask = this.slots.length - 1;
    for (let slot = slotOf(digest, mask); ; slot = (slot + 1) & mask) {
      const stored = this.slots[slot]!;
      if (stored === 0) {
        this.slots[slot] = leaf + 1;
        this.count++;
        return;
      }
      if (this.isDigestOf(stored - 1, digest)) return;
    }
  }

  /** The first leaf with this digest. */
  find(digest: Uint8Array): number | undefined {
    const mask = this.slots.length - 1;
    for (let slot = slotOf(digest, mask); ; slot = (slot + 1) & mask) {
      const stored = this.slots[slot]!;
      if (stored === 0) return undefined;
      if (this.isDigestOf(stored - 1, digest)) return stored - 1;
    }
  }

  private grow(): void {
    const old = this.slots;
    const slots = new Uint32Array(2 * old.length);
    const mask = slots.length - 1;
    for (const stored of old) {
      if (stored === 0) continue;
      let slot = slotOf(this.digestOf(stored - 1), mask);
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = stored;
    }
    this.slots = slots;
  }
}

/** A digest's first 32 bits, masked to the table: digests are SHA-256 outputs, uniform already. */
function slotOf(digest: Uint8Array, mask: number): number {
  return ((digest[0]! << 24) | (digest[1]! << 16) | (digest[2]! << 8) | digest[3]!) & mask;
}
