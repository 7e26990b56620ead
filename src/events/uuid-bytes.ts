/**
 * A canonical lowercase RFC 4122 UUID as its 16 bytes, and back. event-ids.ts makes the text of
 * every id it derives here, and the file log's index keeps ids as their bytes, in memory and on
 * disk, instead of as 36-character text. Any other id (a client's own, or an uppercase UUID,
 * which must come back with its case) is not one.
 */
const HEX = '0123456789abcdef';
/** Where each of the 16 bytes starts in the 36-character text. */
const BYTE_OFFSETS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const DASH = 0x2d;

/** Writes the UUID's 16 bytes at `offset`; false for any other text (the bytes are then meaningless). */
export function writeUuidBytes(id: string, into: Uint8Array, offset: number): boolean {
  if (id.length !== 36 || id.charCodeAt(8) !== DASH || id.charCodeAt(13) !== DASH || id.charCodeAt(18) !== DASH || id.charCodeAt(23) !== DASH) return false;
  for (let i = 0; i < 16; i++) {
    const at = BYTE_OFFSETS[i]!;
    const high = hexValue(id.charCodeAt(at));
    const low = hexValue(id.charCodeAt(at + 1));
    if (high < 0 || low < 0) return false;
    into[offset + i] = (high << 4) | low;
  }
  return true;
}

/** Hex digits as character codes. */
const HEX_CODES = Buffer.from(HEX, 'latin1');
/** The 36 characters of a UUID's text, filled and read as one string (no pieces joined). */
const TEXT = Buffer.alloc(36, DASH);

/** The canonical text of the 16 bytes at `offset`. */
export function uuidText(bytes: Uint8Array, offset: number): string {
  for (let i = 0; i < 16; i++) {
    const at = BYTE_OFFSETS[i]!;
    const byte = bytes[offset + i]!;
    TEXT[at] = HEX_CODES[byte >> 4]!;
    TEXT[at + 1] = HEX_CODES[byte & 15]!;
  }
  return TEXT.toString('latin1', 0, 36);
}

/** The value of a lowercase hex digit's character code, or -1 for any other character. */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}
