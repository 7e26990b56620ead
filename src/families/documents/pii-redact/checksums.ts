import { bech32, bech32m, createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** The validators of the recognisers: a candidate whose check fails is not redacted as its type. */

/** Luhn (ISO/IEC 7812-1) over the digits of a payment card number. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616: the country's registered length, then ISO 7064 mod 97-10 equal to 1. */
export function ibanCheck(iban: string, lengths: Readonly<Record<string, number>>): { ok: boolean; reason?: string } {
  const country = iban.slice(0, 2);
  const expected = lengths[country];
  if (expected === undefined) return { ok: false, reason: `${country} is not a country of the IBAN registry` };
  if (iban.length !== expected) return { ok: false, reason: `a ${country} IBAN has ${expected} characters, not ${iban.length}` };
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1 ? { ok: true } : { ok: false, reason: 'mod-97 check fails' };
}

/** SSA rules: area 000, 666 and 900-999, group 00 and serial 0000 are never issued. */
export function ssnIssuable(area: string, group: string, serial: string): { ok: boolean; reason?: string } {
  const a = Number(area);
  if (a === 0 || a === 666 || a >= 900) return { ok: false, reason: `area number ${area} is never issued` };
  if (group === '00') return { ok: false, reason: 'group number 00 is never issued' };
  if (serial === '0000') return { ok: false, reason: 'serial number 0000 is never issued' };
  return { ok: true };
}

/** EIP-55: a mixed-case address must carry the keccak-256 checksum; one-case addresses carry none. */
export function eip55(address: string): boolean | null {
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return null;
  const hash = bytesToHex(keccak_256(new TextEncoder().encode(hex.toLowerCase())));
  for (let i = 0; i < 40; i++) {
    const ch = hex[i]!;
    if (/[0-9]/.test(ch)) continue;
    const upper = parseInt(hash[i]!, 16) >= 8;
    if (upper !== (ch === ch.toUpperCase())) return false;
  }
  return true;
}

const base58check = createBase58check(sha256);

/** Base58Check (P2PKH version 0x00, P2SH 0x05) or bech32/bech32m segwit (BIP 173, BIP 350) on mainnet. */
export function bitcoinAddressValid(address: string): boolean {
  if (/^bc1/i.test(address)) {
    const lower = address.toLowerCase();
    if (address !== lower && address !== address.toUpperCase()) return false;
    for (const codec of [bech32, bech32m]) {
      try {
        const { prefix, words } = codec.decode(lower as `${string}1${string}`, 90);
        const version = words[0];
        if (prefix !== 'bc' || version === undefined || version > 16) continue;
        // Witness version 0 uses bech32, 1 and above bech32m (BIP 350).
        if ((version === 0) !== (codec === bech32)) continue;
        const program = codec.fromWords(words.slice(1));
        if (version === 0 && program.length !== 20 && program.length !== 32) continue;
        if (program.length < 2 || program.length > 40) continue;
        return true;
      } catch {
        continue;
      }
    }
    return false;
  }
  try {
    const payload = base58check.decode(address);
    return payload.length === 21 && (payload[0] === 0x00 || payload[0] === 0x05);
  } catch {
    return false;
  }
}

const NIF_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';

/** Spanish DNI (8 digits + letter) and NIE (X/Y/Z + 7 digits + letter): the letter is number mod 23. */
export function spanishIdValid(id: string): boolean {
  const upper = id.toUpperCase();
  const digits = upper.replace(/^[XYZ]/, (l) => String('XYZ'.indexOf(l))).slice(0, 8);
  if (!/^\d{8}$/.test(digits)) return false;
  return NIF_LETTERS[Number(digits) % 23] === upper[8];
}

/** Dutch BSN: the eleven test, weights 9..2 and -1 over nine digits. */
export function bsnValid(digits: string): boolean {
  if (!/^\d{9}$/.test(digits) || digits === '000000000') return false;
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(digits[i]) * (9 - i);
  sum -= Number(digits[8]);
  return sum % 11 === 0;
}

/** IPv6 text (RFC 4291 section 2.2), with an embedded IPv4 tail allowed. */
export function ipv6Valid(text: string): boolean {
  let body = text;
  const v4 = /(?:^|:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(body);
  if (v4) {
    if (!ipv4Valid(v4[1]!)) return false;
    // The dotted tail stands for the last two 16-bit groups.
    body = `${body.slice(0, body.length - v4[1]!.length)}0:0`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((part) => (part === '' ? [] : part.split(':')));
  if (!groups.every((g) => /^[0-9A-Fa-f]{1,4}$/.test(g))) return false;
  return halves.length === 2 ? groups.length <= 7 : groups.length === 8;
}

export function ipv4Valid(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255 && (p.length === 1 || p[0] !== '0'));
}
