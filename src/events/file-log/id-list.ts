/**
 * The event id of every position of the log, in the least memory that gives each id back exactly.
 * Nearly every id is a lowercase RFC 4122 UUID (event-ids.ts derives them), kept here as its 16
 * bytes in one growing buffer: about 16 bytes an event instead of a 36-character string (some 56
 * bytes of heap plus an 8-byte slot). Any other id (a client's own, or an uppercase UUID, which
 * must come back with its case) is kept as it was given, beside.
 */
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
    if (!this.packed(id, 16 * position)) this.others.set(position, id);
  }

  /** Writes a canonical lowercase UUID's 16 bytes at `base`; false (bytes left as they are) for any other text. */
  private packed(id: string, base: number): boolean {
    if (id.length !== 36 || id.charCodeAt(8) !== DASH || id.charCodeAt(13) !== DASH || id.charCodeAt(18) !== DASH || id.charCodeAt(23) !== DASH) return false;
    for (let i = 0; i < 16; i++) {
      const at = BYTE_OFFSETS[i]!;
      const high = hexValue(id.charCodeAt(at));
      const low = hexValue(id.charCodeAt(at + 1));
      if (high < 0 || low < 0) return false;
      this.bytes[base + i] = (high << 4) | low;
    }
    return true;
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

const DASH = 0x2d;

/** The value of a lowercase hex digit's character code, or -1 for any other character. */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}
