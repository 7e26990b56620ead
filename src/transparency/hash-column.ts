/**
 * A growable column of fixed-width byte strings in one buffer: a million 32-byte hashes cost
 * 32 MB, not a million Buffer objects.
 */
export class ByteColumn {
  private bytes: Uint8Array;
  private count = 0;

  constructor(
    readonly width: number,
    initialCapacity = 1024,
  ) {
    this.bytes = new Uint8Array(width * initialCapacity);
  }

  get length(): number {
    return this.count;
  }

  /** Makes room for `count` values in all, at once: loading a known number of values copies nothing. */
  reserve(count: number): void {
    if (count * this.width <= this.bytes.length) return;
    const grown = new Uint8Array(count * this.width);
    grown.set(this.bytes.subarray(0, this.count * this.width));
    this.bytes = grown;
  }

  push(value: Uint8Array): void {
    if (value.length !== this.width) throw new RangeError(`expected ${this.width} bytes, got ${value.length}`);
    if ((this.count + 1) * this.width > this.bytes.length) {
      const grown = new Uint8Array(this.bytes.length * 2);
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.bytes.set(value, this.count * this.width);
    this.count++;
  }

  /** Whether the value at `index` is `value`, without making a view. */
  equalsAt(index: number, value: Uint8Array): boolean {
    const base = index * this.width;
    for (let i = 0; i < this.width; i++) if (this.bytes[base + i] !== value[i]) return false;
    return true;
  }

  /** A view, valid until the next push: copy it to keep it. */
  at(index: number): Uint8Array {
    if (index < 0 || index >= this.count) throw new RangeError(`index ${index} outside a column of ${this.count}`);
    return this.bytes.subarray(index * this.width, (index + 1) * this.width);
  }
}
