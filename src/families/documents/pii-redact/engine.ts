import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { CountryCode } from 'libphonenumber-js/max';
import type { CommandResult } from '../../../kernel/operation.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { utilityReceipt } from '../utility-receipt.ts';
import { RECOGNISERS, type Candidate } from './recognisers.ts';
import { PII_REDACT_RULESET, PII_TYPES, type PiiMode, type PiiType } from './vocabulary.ts';

/** The pinned data the recognisers use, read by data.ts and handed in. */
export interface PiiData {
  ibanLengths: Readonly<Record<string, number>>;
  dataset: { name: string; version: string; sha256: string; data_date: string };
}

export interface PiiRedactInput {
  text: string;
  entities?: PiiType[] | undefined;
  names?: string[] | undefined;
  mode?: PiiMode | undefined;
  /** Required for mode "pseudonym"; never written to the record. */
  pseudonym_key?: string | undefined;
  phone_region?: string | undefined;
}

/** UTF-16 index -> code-point offset, for every index of the text (one pass). */
function codePointIndex(text: string): Int32Array {
  const map = new Int32Array(text.length + 1);
  let cp = 0;
  for (let i = 0; i < text.length; i++) {
    map[i] = cp;
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        map[i + 1] = cp;
        i++;
      }
    }
    cp++;
  }
  map[text.length] = cp;
  return map;
}

/** Earlier first, then longer: an accepted span wins over any later span it overlaps. */
function resolveOverlaps(candidates: Candidate[]): Candidate[] {
  const sorted = [...candidates].sort((a, b) => a.start - b.start || b.end - b.start - (a.end - a.start) || PII_TYPES.indexOf(a.type) - PII_TYPES.indexOf(b.type));
  const kept: Candidate[] = [];
  let reached = 0;
  for (const c of sorted) {
    if (c.start < reached) continue;
    kept.push(c);
    reached = c.end;
  }
  return kept;
}

const within = (inner: Candidate, outer: Candidate) => inner !== outer && outer.start <= inner.start && inner.end <= outer.end && outer.end - outer.start > inner.end - inner.start;

/**
 * Which candidates are redacted and which are reported as rejected. A digit run inside a
 * rejected longer candidate (the digits of an IBAN whose mod-97 fails, which may pass Luhn by
 * chance) is not redacted either: the text was an IBAN, and a bad one. A rejection inside a
 * redacted span says nothing the caller needs.
 */
function settle(candidates: Candidate[]): { accepted: Candidate[]; rejected: Candidate[] } {
  const failed = candidates.filter((c) => !c.accepted);
  const shadowed = candidates.filter((c) => c.accepted && failed.some((f) => within(c, f)));
  const accepted = resolveOverlaps(candidates.filter((c) => c.accepted && !shadowed.includes(c)));
  const rejected = [...failed, ...shadowed.map((c) => ({ ...c, reason: 'inside a longer candidate whose validator failed' }))]
    .filter((c) => !accepted.some((a) => a.start <= c.start && c.end <= a.end))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  return { accepted, rejected };
}

/** An HMAC-SHA256 of type and value under the caller's key: stable per key, unlinkable without it. */
function pseudonym(key: string, type: PiiType, value: string): string {
  const mac = hmac(sha256, new TextEncoder().encode(key), new TextEncoder().encode(`${type}\u0000${value}`));
  return `<${type}_${bytesToHex(mac).slice(0, 16)}>`;
}

function replacementFor(mode: PiiMode, candidate: Candidate, value: string, key: string | undefined): string {
  if (mode === 'tag') return `<${candidate.type}>`;
  if (mode === 'pseudonym') return pseudonym(key ?? '', candidate.type, value);
  return '*'.repeat([...value].length);
}

const LIMITATIONS = [
  'Person names are redacted only where they appear in the caller\'s names list; names are otherwise not detected (that needs a model).',
  'Addresses, free-text identifiers and national ids without a checksum are not detected.',
  'Patterns find what is written in the usual forms; a value split or obfuscated in the text is not found.',
];

export function runPiiRedact(data: PiiData) {
  return (input: PiiRedactInput, now: number): CommandResult => {
    const text = input.text;
    const mode: PiiMode = input.mode ?? 'mask';
    const types = input.entities && input.entities.length > 0 ? PII_TYPES.filter((t) => input.entities!.includes(t)) : [...PII_TYPES];
    const context = { text, ibanLengths: data.ibanLengths, names: input.names ?? [], phoneRegion: input.phone_region as CountryCode | undefined };
    const candidates = types.flatMap((type) => RECOGNISERS[type](context));
    const { accepted, rejected: rejectedCandidates } = settle(candidates);
    const cp = codePointIndex(text);

    let output = '';
    let at = 0;
    const audit: JsonObject[] = [];
    const counts: Record<string, number> = {};
    for (const c of accepted) {
      const replacement = replacementFor(mode, c, text.slice(c.start, c.end), input.pseudonym_key);
      output += text.slice(at, c.start) + replacement;
      at = c.end;
      counts[c.type] = (counts[c.type] ?? 0) + 1;
      audit.push({
        type: c.type, start: cp[c.start]!, end: cp[c.end]!, recogniser: c.recogniser, validator: c.validator, checksum_validated: c.checksum_validated,
        ...(c.context_word ? { context_word: c.context_word } : {}), replacement,
      });
    }
    output += text.slice(at);
    // Candidates the validator rejected are reported (offsets only, never the value) and left in place.
    const rejected = rejectedCandidates
      .map((c) => ({ type: c.type, start: cp[c.start]!, end: cp[c.end]!, recogniser: c.recogniser, validator: c.validator, checksum_validated: c.checksum_validated, reason: c.reason ?? 'rejected by its validator' }));

    return utilityReceipt({
      utility: 'utils.pii-redact',
      now,
      input: text,
      output: { content: output, mediaType: 'text/plain; charset=utf-8' },
      ruleset: { ...PII_REDACT_RULESET, data: [data.dataset] },
      findings: {
        outcome: audit.length > 0 ? 'REDACTED' : 'NOTHING-FOUND',
        mode,
        offset_unit: 'unicode-code-point',
        entities_checked: types,
        names_supplied: input.names?.length ?? 0,
        counts,
        audit,
        rejected,
        ...(mode === 'pseudonym' ? { pseudonym: { algorithm: 'HMAC-SHA256', form: '<TYPE_first 16 hex of HMAC(key, TYPE NUL value)>', key: 'caller-supplied; not recorded' } } : {}),
        evidence_source: 'caller-supplied',
        limitations: LIMITATIONS,
      },
    });
  };
}
