/**
 * Event id -> position of the last event written with that id: the idempotency lookup, done for
 * nearly every append. An open-addressing table in one typed array instead of a Map of every id
 * ever written: a Map probe loads bucket, entry and key string from all over the heap (cache
 * misses that cost about 0.8 µs per append at a few hundred thousand ids), and its growth rehashes
 * every string. Here a slot holds the id's hash next to its position, so the usual lookup (an id
 * never seen) touches one cache line and no string; ids themselves are only compared on a hash
 * match, through `idAt`.
 */
export class IdTable {
  /** Pairs of [hash, position + 1]; position + 1 of 0 marks an empty slot. */
  private slots = new Float64Array(2 * 1024);
  private mask = 1023;
  private count = 0;
  /** The id hashed last and its hash: an append looks its first id up, then records it. */
  private lastId = '';
  private lastHash = hashOf('');

  constructor(private readonly idAt: (position: number) => string | undefined) {}

  /** Position of the last event with this id, or -1. */
  get(id: string): number {
    const slots = this.slots;
    const hash = this.hashOf(id);
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const stored = slots[2 * slot + 1]!;
      if (stored === 0) return -1;
      if (slots[2 * slot] === hash && this.idAt(stored - 1) === id) return stored - 1;
    }
  }

  /** Records that the event at `position` has this id (replacing an earlier event's). */
  set(id: string, position: number): void {
    const slots = this.slots;
    const hash = this.hashOf(id);
    for (let slot = hash & this.mask; ; slot = (slot + 1) & this.mask) {
      const stored = slots[2 * slot + 1]!;
      if (stored === 0) {
        slots[2 * slot] = hash;
        slots[2 * slot + 1] = position + 1;
        // At most half full: probe runs stay short.
        if (++this.count * 2 > this.mask + 1) this.grow();
        return;
      }
      if (slots[2 * slot] === hash && this.idAt(stored - 1) === id) {
        slots[2 * slot + 1] = position + 1;
        return;
      }
    }
  }

  private hashOf(id: string): number {
    if (id !== this.lastId) {
      this.lastHash = hashOf(id);
      this.lastId = id;
    }
    return this.lastHash;
  }

  /** Doubles the table; the stored hashes place every entry again without reading any id. */
  private grow(): void {
    const old = this.slots;
    const size = 2 * (this.mask + 1);
    const mask = size - 1;
    const slots = new Float64Array(2 * size);
    for (let i = 0; i < old.length; i += 2) {
      const stored = old[i + 1]!;
      if (stored === 0) continue;
      const hash = old[i]!;
      let slot = hash & mask;
      while (slots[2 * slot + 1] !== 0) slot = (slot + 1) & mask;
      slots[2 * slot] = hash;
      slots[2 * slot + 1] = stored;
    }
    this.slots = slots;
    this.mask = mask;
  }
}

/** FNV-1a over the UTF-16 code units, as a non-negative 31-bit integer. */
function hashOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return hash >>> 1;
}
