/**
 * A canonical lowercase RFC 4122 UUID (every id event-ids.ts derives) as its 16 bytes, and back:
 * the index keeps ids this way, in memory and on disk, instead of as 36-character text. Any other
 * id (a client's own, or an uppercase UUID, which must come back with its case) is not one.
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

/** The canonical text of the 16 bytes at `offset`. */
export function uuidText(bytes: Uint8Array, offset: number): string {
  let text = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text += '-';
    const byte = bytes[offset + i]!;
    text += HEX[byte >> 4]! + HEX[byte & 15]!;
  }
  return text;
}

/** The value of a lowercase hex digit's character code, or -1 for any other character. */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}
