import { findPhoneNumbersInText } from 'libphonenumber-js/max';
import { bitcoinAddressCheck, bsnValid, eip55, ibanCheck, luhnValid, spanishIdValid, ssnIssuable } from './checksums.ts';

export const ENTITY_TYPES = ['EMAIL_ADDRESS', 'PHONE_NUMBER', 'CREDIT_CARD', 'IBAN_CODE', 'US_SSN', 'IP_ADDRESS', 'EVM_ADDRESS', 'BITCOIN_ADDRESS', 'DATE_OF_BIRTH', 'NL_BSN', 'ES_NIF', 'PERSON'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

/** A span the recognisers found, in UTF-16 indices of the text (converted to code points later). */
export interface Candidate {
  type: EntityType;
  start: number;
  end: number;
  recogniser: string;
  /** valid / absent (no checksum in this form) / not-applicable; `invalid` candidates are rejected. */
  checksum: 'valid' | 'invalid' | 'absent' | 'not-applicable';
  reason?: string;
}

interface PatternRecogniser {
  type: EntityType;
  name: string;
  pattern: RegExp;
  /** The checksum or validity of a match; absent: a pattern alone decides. */
  validate?(match: RegExpExecArray): Candidate['checksum'];
  /** Words that must appear within CONTEXT_WINDOW characters before the match. */
  context?: RegExp;
  why?: string;
}

// A few words before the match, as Presidio's context enhancer looks: far enough for "date of birth:", not the next sentence.
const isIPv4 = (s: string) => /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(s);
/** The WHATWG URL parser validates an IPv6 literal exactly (RFC 4291 forms, IPv4 tails); nothing is fetched. */
function isIPv6(s: string): boolean {
  if (!s.includes(':')) return false;
  try {
    return new URL(`http://[${s}]/`).hostname.startsWith('[');
  } catch {
    return false;
  }
}

const CONTEXT_WINDOW = 20;

/** Presidio's pattern + context + validator scheme, with deterministic rules only. */
const RECOGNISERS: PatternRecogniser[] = [
  { type: 'EMAIL_ADDRESS', name: 'email-rfc5322-subset', pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g },
  {
    type: 'CREDIT_CARD',
    name: 'payment-card-luhn',
    pattern: /\b(?:\d[ -]?){12,18}\d\b/g,
    validate: (m) => (luhnValid(m[0].replace(/[ -]/g, '')) ? 'valid' : 'invalid'),
    why: 'the Luhn check digit does not match',
  },
  {
    type: 'IBAN_CODE',
    name: 'iban-iso13616-mod97',
    pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g,
    validate: (m) => ibanCheck(m[0].replace(/ /g, '')),
    why: 'the ISO 13616 mod-97 check (or the country length) fails',
  },
  {
    type: 'US_SSN',
    name: 'us-ssn-issuable',
    pattern: /\b(\d{3})-(\d{2})-(\d{4})\b/g,
    validate: (m) => (ssnIssuable(m[1]!, m[2]!, m[3]!) ? 'not-applicable' : 'invalid'),
    why: 'an area, group or serial number that is never issued',
  },
  { type: 'IP_ADDRESS', name: 'ipv4', pattern: /\b(?:\d{1,3}\.){3}\d{1,3}\b/g, validate: (m) => (isIPv4(m[0]) ? 'not-applicable' : 'invalid'), why: 'not a valid IPv4 address' },
  { type: 'IP_ADDRESS', name: 'ipv6', pattern: /(?<![\w:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])/g, validate: (m) => (isIPv6(m[0]) ? 'not-applicable' : 'invalid'), why: 'not a valid IPv6 address' },
  { type: 'EVM_ADDRESS', name: 'evm-eip55', pattern: /\b0x[0-9a-fA-F]{40}\b/g, validate: (m) => eip55(m[0]), why: 'the EIP-55 mixed-case checksum does not match' },
  { type: 'BITCOIN_ADDRESS', name: 'bitcoin-base58check-bech32', pattern: /\b(?:[13][1-9A-HJ-NP-Za-km-z]{25,34}|bc1[02-9ac-hj-np-z]{11,71})\b/g, validate: (m) => bitcoinAddressCheck(m[0]), why: 'the Base58Check or bech32 checksum fails' },
  {
    type: 'DATE_OF_BIRTH',
    name: 'date-of-birth-with-context',
    pattern: /\b(?:\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{4})\b/g,
    context: /\b(born|birth|dob|d\.o\.b\.|geboren|né|née|nacido|nata?o?)\b/i,
  },
  { type: 'NL_BSN', name: 'nl-bsn-elfproef', pattern: /\b\d{9}\b/g, context: /\b(bsn|burgerservicenummer|sofinummer)\b/i, validate: (m) => (bsnValid(m[0]) ? 'valid' : 'invalid'), why: 'the elfproef (11-test) fails' },
  { type: 'ES_NIF', name: 'es-dni-nie-letter', pattern: /\b[XYZ]?\d{7,8}[A-Z]\b/g, validate: (m) => (spanishIdValid(m[0]) ? 'valid' : 'invalid'), why: 'the control letter does not match' },
];

function contextBefore(text: string, index: number): string {
  return text.slice(Math.max(0, index - CONTEXT_WINDOW), index);
}

export function recognise(text: string, wanted: ReadonlySet<EntityType>, names: readonly string[]): { found: Candidate[]; rejected: Candidate[] } {
  const found: Candidate[] = [];
  const rejected: Candidate[] = [];
  for (const r of RECOGNISERS) {
    if (!wanted.has(r.type)) continue;
    for (const m of text.matchAll(r.pattern)) {
      const start = m.index;
      if (r.context && !r.context.test(contextBefore(text, start))) continue;
      const checksum = r.validate ? r.validate(m as RegExpExecArray) : 'not-applicable';
      const candidate: Candidate = { type: r.type, start, end: start + m[0].length, recogniser: r.name, checksum };
      if (checksum === 'invalid') rejected.push({ ...candidate, reason: r.why ?? 'invalid' });
      else found.push(candidate);
    }
  }
  if (wanted.has('PHONE_NUMBER')) {
    // libphonenumber's metadata decides what a valid number is, country by country.
    for (const p of findPhoneNumbersInText(text)) found.push({ type: 'PHONE_NUMBER', start: p.startsAt, end: p.endsAt, recogniser: 'libphonenumber-valid-number', checksum: 'not-applicable' });
  }
  if (wanted.has('PERSON')) {
    for (const name of names) {
      if (name.trim() === '') continue;
      const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'gu');
      for (const m of text.matchAll(pattern)) found.push({ type: 'PERSON', start: m.index, end: m.index + m[0].length, recogniser: 'caller-supplied-name', checksum: 'not-applicable' });
    }
  }
  const kept = resolveOverlaps(found);
  const overlaps = (a: Candidate, b: Candidate) => a.start < b.end && b.start < a.end;
  // A rejected span inside a found one, or inside a longer rejected one, is noise (card-like digits of an IBAN).
  const meaningful = rejected.filter((r) => !kept.some((k) => overlaps(k, r)) && !rejected.some((o) => o !== r && o.start <= r.start && o.end >= r.end && o.end - o.start > r.end - r.start));
  return { found: kept, rejected: meaningful };
}

/** Earlier first; at the same start the longer span wins; a span inside a kept one is dropped. */
function resolveOverlaps(candidates: Candidate[]): Candidate[] {
  const sorted = [...candidates].sort((a, b) => a.start - b.start || b.end - a.end || ENTITY_TYPES.indexOf(a.type) - ENTITY_TYPES.indexOf(b.type));
  const kept: Candidate[] = [];
  for (const c of sorted) if (kept.length === 0 || c.start >= kept.at(-1)!.end) kept.push(c);
  return kept;
}
