import { keccak_256 } from '@noble/hashes/sha3.js';
import { createHash } from 'node:crypto';
import { base58, bech32, bech32m } from '@scure/base';

/** Luhn (ISO/IEC 7812-1): the check digit of payment card numbers. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** IBAN lengths by country (ISO 13616 registry), for the countries listed; others: mod-97 only. */
export const IBAN_LENGTHS: Record<string, number> = {
  AD: 24, AE: 23, AT: 20, BE: 16, BG: 22, CH: 21, CY: 28, CZ: 24, DE: 22, DK: 18, EE: 20, ES: 24, FI: 18, FR: 27, GB: 22, GR: 27, HR: 21, HU: 28, IE: 22, IS: 26,
  IT: 27, LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MT: 31, NL: 18, NO: 15, PL: 28, PT: 25, RO: 24, SE: 24, SI: 19, SK: 24, SM: 27, TR: 26,
};

/** ISO 13616 check: the rearranged number, letters as 10..35, is 1 mod 97 (and the country's length). */
export function ibanCheck(compact: string): 'valid' | 'invalid' {
  const country = compact.slice(0, 2);
  const length = IBAN_LENGTHS[country];
  if (length !== undefined && compact.length !== length) return 'invalid';
  const rearranged = `${compact.slice(4)}${compact.slice(0, 4)}`;
  let remainder = 0;
  for (const ch of rearranged) {
    const value = ch >= 'A' ? ch.charCodeAt(0) - 55 : ch.charCodeAt(0) - 48;
    remainder = Number(`${remainder}${value}`) % 97;
  }
  return remainder === 1 ? 'valid' : 'invalid';
}

/** US SSNs never issued: area 000, 666 or 900-999, group 00, serial 0000. */
export function ssnIssuable(area: string, group: string, serial: string): boolean {
  const a = Number(area);
  return a !== 0 && a !== 666 && a < 900 && group !== '00' && serial !== '0000';
}

/** EIP-55: a mixed-case address must carry the checksum; one case only carries none. */
export function eip55(address: string): 'valid' | 'invalid' | 'absent' {
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return 'absent';
  const digest = Buffer.from(keccak_256(new TextEncoder().encode(hex.toLowerCase()))).toString('hex');
  for (let i = 0; i < 40; i++) {
    const ch = hex[i]!;
    if (/[a-f]/i.test(ch) && (parseInt(digest[i]!, 16) >= 8 ? ch !== ch.toUpperCase() : ch !== ch.toLowerCase())) return 'invalid';
  }
  return 'valid';
}

/** Base58Check (P2PKH 0x00, P2SH 0x05) or segwit bech32/bech32m on mainnet (bc1). */
export function bitcoinAddressCheck(address: string): 'valid' | 'invalid' {
  if (/^bc1/i.test(address)) {
    for (const codec of [bech32, bech32m]) {
      try {
        const { prefix } = codec.decode(address.toLowerCase() as `${string}1${string}`);
        if (prefix === 'bc') return 'valid';
      } catch {
        // try the other encoding
      }
    }
    return 'invalid';
  }
  try {
    const bytes = base58.decode(address);
    if (bytes.length !== 25 || (bytes[0] !== 0x00 && bytes[0] !== 0x05)) return 'invalid';
    const check = createHash('sha256').update(createHash('sha256').update(bytes.subarray(0, 21)).digest()).digest();
    return check.subarray(0, 4).equals(Buffer.from(bytes.subarray(21))) ? 'valid' : 'invalid';
  } catch {
    return 'invalid';
  }
}

/** Dutch BSN: the "elfproef", weights 9..2 and -1, sum divisible by 11. */
export function bsnValid(digits: string): boolean {
  if (!/^\d{9}$/.test(digits)) return false;
  const sum = [...digits].reduce((s, d, i) => s + Number(d) * (i === 8 ? -1 : 9 - i), 0);
  return sum % 11 === 0 && sum !== 0;
}

/** Spanish DNI / NIE: the letter is the number mod 23 in TRWAGMYFPDXBNJZSQVHLCKE. */
export function spanishIdValid(id: string): boolean {
  const letters = 'TRWAGMYFPDXBNJZSQVHLCKE';
  const m = /^([XYZ]?)(\d{7,8})([A-Z])$/.exec(id.toUpperCase());
  if (!m) return false;
  const number = Number(`${m[1] ? 'XYZ'.indexOf(m[1]) : ''}${m[2]}`);
  return letters[number % 23] === m[3];
}
