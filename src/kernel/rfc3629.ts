/**
 * UTF-8 as RFC 3629 (section 4) defines it: the text every JSON exchange uses (RFC 8259 section
 * 8.1) and every signed record is hashed in. A lenient decoder turns an ill-formed byte into
 * U+FFFD, which would sign something other than what the caller sent; these helpers refuse it
 * instead and say where it is.
 */

export type Utf8Decoded = { ok: true; text: string } | { ok: false; offset: number; byte: number };

// One decoder for the process: decode() keeps no state between calls when not streaming.
const strict = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text, a leading byte order mark dropped (RFC 8259 lets a parser ignore it); or where the first ill-formed sequence starts. */
export function decodeUtf8(bytes: Uint8Array): Utf8Decoded {
  try {
    return { ok: true, text: strict.decode(bytes) };
  } catch {
    const offset = firstIllFormedOffset(bytes);
    return { ok: false, offset, byte: bytes[offset] ?? 0 };
  }
}

/** A problem's wording: the byte and its offset. */
export function describeIllFormed(failure: { offset: number; byte: number }): string {
  const hex = failure.byte.toString(16).toUpperCase().padStart(2, '0');
  return `the byte 0x${hex} at offset ${failure.offset} starts no well-formed UTF-8 sequence (RFC 3629)`;
}

/**
 * The offset of the first byte that does not start a well-formed sequence, or the length when
 * every sequence is well formed. The ranges are those of RFC 3629's UTF8-octets rule: no
 * overlong forms, no surrogates (ED A0..BF), nothing above U+10FFFF.
 */
export function firstIllFormedOffset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes, i);
    if (length === 0) return i;
    i += length;
  }
  return i;
}

/** The length of the well-formed sequence at `i`, or 0. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const lead = bytes[i]!;
  if (lead < 0x80) return 1;
  const [length, secondMin, secondMax] = LEADS[lead] ?? [0, 0, 0];
  if (length === 0 || i + length > bytes.length) return 0;
  const second = bytes[i + 1]!;
  if (second < secondMin || second > secondMax) return 0;
  for (let k = 2; k < length; k++) if (!isContinuation(bytes[i + k]!)) return 0;
  return length;
}

const isContinuation = (byte: number): boolean => byte >= 0x80 && byte <= 0xbf;

/** Lead byte -> [sequence length, allowed range of the second byte]. */
const LEADS: Readonly<Record<number, readonly [number, number, number]>> = (() => {
  const leads: Record<number, readonly [number, number, number]> = {};
  for (let b = 0xc2; b <= 0xdf; b++) leads[b] = [2, 0x80, 0xbf];
  leads[0xe0] = [3, 0xa0, 0xbf];
  for (let b = 0xe1; b <= 0xec; b++) leads[b] = [3, 0x80, 0xbf];
  leads[0xed] = [3, 0x80, 0x9f];
  leads[0xee] = leads[0xef] = [3, 0x80, 0xbf];
  leads[0xf0] = [4, 0x90, 0xbf];
  leads[0xf1] = leads[0xf2] = leads[0xf3] = [4, 0x80, 0xbf];
  leads[0xf4] = [4, 0x80, 0x8f];
  return leads;
})();
