import { findPhoneNumbersInText, type CountryCode } from 'libphonenumber-js/max';
import { readDay } from '../invoice-extract/text-invoice.ts';
import type { PiiType } from './vocabulary.ts';
import { bitcoinAddressValid, bsnValid, eip55, ibanCheck, ipv4Valid, ipv6Valid, luhnValid, spanishIdValid, ssnIssuable } from './checksums.ts';

export interface Candidate {
  type: PiiType;
  start: number;
  end: number;
  recogniser: string;
  /** The check applied: a checksum, a registry rule, or null when the pattern is all there is. */
  validator: string | null;
  /** true/false for a checksum proper; null when the type carries none. */
  checksum_validated: boolean | null;
  accepted: boolean;
  reason?: string;
  context_word?: string;
}

export interface RecogniserContext {
  text: string;
  ibanLengths: Readonly<Record<string, number>>;
  names: readonly string[];
  phoneRegion?: CountryCode | undefined;
}

const CONTEXT_WINDOW = 40;

function contextWord(text: string, start: number, words: RegExp): string | undefined {
  const before = text.slice(Math.max(0, start - CONTEXT_WINDOW), start);
  const matches = [...before.matchAll(new RegExp(words.source, 'gi'))];
  return matches.length > 0 ? matches[matches.length - 1]![0] : undefined;
}

function* matches(text: string, pattern: RegExp): Generator<RegExpMatchArray & { index: number }> {
  for (const m of text.matchAll(pattern)) yield m as RegExpMatchArray & { index: number };
}

const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,63}\b/g;
const CARD = /\b(?:\d[ -]?){12,18}\d\b/g;
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,34}\b/g;
const SSN = /\b(\d{3})-(\d{2})-(\d{4})\b|\b(\d{3}) (\d{2}) (\d{4})\b|\b(\d{9})\b/g;
const SSN_CONTEXT = /\b(?:ssn|social\s+security(?:\s+number)?|ss#)/;
const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}\b/g;
const IPV6 = /(?<![0-9A-Za-z:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]{0,4})(?![0-9A-Za-z:])/g;
const EVM = /\b0x[0-9a-fA-F]{40}\b/g;
const BTC_BASE58 = /\b[13][1-9A-HJ-NP-Za-km-z]{25,34}\b/g;
const BTC_BECH32 = /\b(?:bc1|BC1)[02-9ac-hj-np-zAC-HJ-NP-Z]{6,87}\b/g;
const DATE_CANDIDATE = /\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}[./-]\d{1,2}[./-]\d{4}\b|\b\d{1,2}(?:st|nd|rd|th)?\.?\s+[A-Za-z]{3,9}\.?,?\s+\d{4}\b|\b[A-Za-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}\b/g;
const DOB_CONTEXT = /\b(?:born|birth|birthday|d\.?o\.?b\.?|geboren|née?)/;
const ES_NIF = /\b(?:\d{8}|[XYZ]\d{7})[A-Z]\b/g;
const BSN = /\b\d{9}\b/g;
const BSN_CONTEXT = /\b(?:bsn|burgerservicenummer|sofinummer)/;

type Recogniser = (ctx: RecogniserContext) => Candidate[];

const base = (type: PiiType, recogniser: string, start: number, end: number, validator: string | null, checksum: boolean | null, accepted: boolean, reason?: string): Candidate => ({
  type, start, end, recogniser, validator, checksum_validated: checksum, accepted, ...(reason ? { reason } : {}),
});

const email: Recogniser = ({ text }) => [...matches(text, EMAIL)].map((m) => base('EMAIL_ADDRESS', 'email-pattern', m.index, m.index + m[0].length, null, null, true));

const phone: Recogniser = ({ text, phoneRegion }) =>
  findPhoneNumbersInText(text, phoneRegion ? { defaultCountry: phoneRegion } : {}).map((found) =>
    base('PHONE_NUMBER', 'libphonenumber', found.startsAt, found.endsAt, 'libphonenumber-metadata', null, found.number.isValid(), found.number.isValid() ? undefined : 'not a valid number of its numbering plan'),
  );

const card: Recogniser = ({ text }) =>
  [...matches(text, CARD)].flatMap((m) => {
    const digits = m[0].replace(/[ -]/g, '');
    if (digits.length < 13 || digits.length > 19) return [];
    const ok = luhnValid(digits);
    return [base('CREDIT_CARD', 'card-pattern', m.index, m.index + m[0].length, 'luhn', ok, ok, ok ? undefined : 'Luhn check fails')];
  });

/** An IBAN pattern can run on into following capitals: cut it at the country's registered length. */
const iban: Recogniser = ({ text, ibanLengths }) =>
  [...matches(text, IBAN)].map((m) => {
    const written = m[0];
    const expected = ibanLengths[written.slice(0, 2)];
    let end = written.length;
    if (expected !== undefined) {
      let seen = 0;
      for (let i = 0; i < written.length; i++) {
        if (written[i] !== ' ') seen++;
        if (seen === expected) {
          end = i + 1;
          break;
        }
      }
    }
    const compact = written.slice(0, end).replace(/ /g, '');
    const check = ibanCheck(compact, ibanLengths);
    return base('IBAN_CODE', 'iban-pattern', m.index, m.index + end, 'iban-length-and-mod97', check.ok, check.ok, check.reason);
  });

const ssn: Recogniser = ({ text }) =>
  [...matches(text, SSN)].flatMap((m) => {
    const context = contextWord(text, m.index, SSN_CONTEXT);
    // A bare nine-digit run is an SSN only where the text says so.
    if (m[7] !== undefined && context === undefined) return [];
    const [area, group, serial] = m[1] !== undefined ? [m[1], m[2]!, m[3]!] : m[4] !== undefined ? [m[4], m[5]!, m[6]!] : [m[7]!.slice(0, 3), m[7]!.slice(3, 5), m[7]!.slice(5)];
    const rule = ssnIssuable(area, group, serial);
    return [{ ...base('US_SSN', 'ssn-pattern', m.index, m.index + m[0].length, 'ssa-issuable-ranges', null, rule.ok, rule.reason), ...(context ? { context_word: context } : {}) }];
  });

const ip: Recogniser = ({ text }) => [
  ...[...matches(text, IPV4)].filter((m) => ipv4Valid(m[0])).map((m) => base('IP_ADDRESS', 'ipv4-pattern', m.index, m.index + m[0].length, 'ipv4-octets', null, true)),
  ...[...matches(text, IPV6)].filter((m) => ipv6Valid(m[0])).map((m) => base('IP_ADDRESS', 'ipv6-pattern', m.index, m.index + m[0].length, 'rfc4291-text', null, true)),
];

const evm: Recogniser = ({ text }) =>
  [...matches(text, EVM)].map((m) => {
    const checksum = eip55(m[0]);
    return base('EVM_ADDRESS', 'evm-pattern', m.index, m.index + m[0].length, 'eip55', checksum, checksum !== false, checksum === false ? 'EIP-55 mixed-case checksum fails' : undefined);
  });

const bitcoin: Recogniser = ({ text }) =>
  [...matches(text, BTC_BASE58), ...matches(text, BTC_BECH32)].map((m) => {
    const ok = bitcoinAddressValid(m[0]);
    const validator = /^bc1/i.test(m[0]) ? 'bech32-bech32m' : 'base58check';
    return base('BITCOIN_ADDRESS', 'bitcoin-pattern', m.index, m.index + m[0].length, validator, ok, ok, ok ? undefined : `${validator} checksum fails`);
  });

const dateOfBirth: Recogniser = ({ text }) =>
  [...matches(text, DATE_CANDIDATE)].flatMap((m) => {
    const context = contextWord(text, m.index, DOB_CONTEXT);
    if (context === undefined) return [];
    const read = readDay(m[0]);
    // An ambiguous order (03/04/1990) is still a date of birth: redacted whichever way it reads.
    const isDay = read !== undefined && ('iso' in read.day || read.day.reason.includes('ambiguous'));
    if (!isDay) return [];
    return [{ ...base('DATE_OF_BIRTH', 'date-with-context', m.index, m.index + m[0].length, 'calendar-day', null, true), context_word: context }];
  });

const spanishId: Recogniser = ({ text }) =>
  [...matches(text, ES_NIF)].map((m) => {
    const ok = spanishIdValid(m[0]);
    return base('ES_NIF', 'es-nif-pattern', m.index, m.index + m[0].length, 'dni-nie-mod23', ok, ok, ok ? undefined : 'control letter does not match (mod 23)');
  });

const dutchBsn: Recogniser = ({ text }) =>
  [...matches(text, BSN)].flatMap((m) => {
    const context = contextWord(text, m.index, BSN_CONTEXT);
    if (context === undefined) return [];
    const ok = bsnValid(m[0]);
    return [{ ...base('NL_BSN', 'bsn-with-context', m.index, m.index + m[0].length, 'bsn-eleven-test', ok, ok, ok ? undefined : 'eleven test fails'), context_word: context }];
  });

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Person names only from the caller's list: whole words, case-insensitive. */
const person: Recogniser = ({ text, names }) =>
  names.flatMap((name) => {
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(name)}(?![\\p{L}\\p{N}])`, 'giu');
    return [...matches(text, pattern)].map((m) => base('PERSON', 'caller-names-list', m.index, m.index + m[0].length, null, null, true));
  });

/**
 * Recognisers in the pattern Microsoft Presidio uses: a pattern finds candidates, context words
 * near them support (or, for bare digit runs, are required for) the type, and a validator
 * (checksum or registry rule) accepts or rejects each. A rejected candidate is not redacted as
 * its type. Offsets here are UTF-16 indices; the engine reports code points.
 */
export const RECOGNISERS: Record<PiiType, Recogniser> = {
  EMAIL_ADDRESS: email,
  PHONE_NUMBER: phone,
  CREDIT_CARD: card,
  IBAN_CODE: iban,
  US_SSN: ssn,
  IP_ADDRESS: ip,
  EVM_ADDRESS: evm,
  BITCOIN_ADDRESS: bitcoin,
  DATE_OF_BIRTH: dateOfBirth,
  ES_NIF: spanishId,
  NL_BSN: dutchBsn,
  PERSON: person,
};
