/**
 * The event id of every position of the log, in the least memory that gives each id back exactly.
 * Nearly every id is a lowercase RFC 4122 UUID (event-ids.ts derives them), kept here as its 16
 * bytes in one growing buffer: about 16 bytes an event instead of a 36-character string (some 56
 * bytes of heap plus an 8-byte slot). Any other id (a client's own, or an uppercase UUID, which
 * must come back with its case) is kept as it was given, beside.
 */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX = '0123456789abcdef';
/** Where each of the 16 bytes starts in the 36-character text. */
const BYTE_OFFSETS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

export class IdList {
  private bytes = new Uint8Array(16 * 1024);
  /** Ids that are not canonical UUIDs, by position; their 16 bytes stay unused. */
  private readonly others = new Map<number, string>();
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(id: string): void {
    const position = this.count++;
    if (16 * this.count > this.bytes.length) this.grow();
    if (!CANONICAL_UUID.test(id)) {
      this.others.set(position, id);
      return;
    }
    const base = 16 * position;
    for (let i = 0; i < 16; i++) {
      const at = BYTE_OFFSETS[i]!;
      this.bytes[base + i] = (hexValue(id.charCodeAt(at)) << 4) | hexValue(id.charCodeAt(at + 1));
    }
  }

  at(position: number): string | undefined {
    if (position < 0 || position >= this.count) return undefined;
    const other = this.others.get(position);
    if (other !== undefined) return other;
    let text = '';
    const base = 16 * position;
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) text += '-';
      const byte = this.bytes[base + i]!;
      text += HEX[byte >> 4]! + HEX[byte & 15]!;
    }
    return text;
  }

  private grow(): void {
    const bigger = new Uint8Array(this.bytes.length * 2);
    bigger.set(this.bytes);
    this.bytes = bigger;
  }
}

/** The value of a lowercase hex digit's character code (the pattern has been checked). */
function hexValue(code: number): number {
  return code <= 57 ? code - 48 : code - 87;
}
