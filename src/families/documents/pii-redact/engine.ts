import { createHmac } from 'node:crypto';
import type { CommandResult } from '../../../kernel/operation.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { utilityReceipt } from '../utility-receipt.ts';
import { ENTITY_TYPES, recognise, type Candidate, type EntityType } from './recognisers.ts';

export const PII_RULESET = { id: 'pii-redact', version: '1' } as const;

export interface PiiRedactInput {
  text: string;
  entities?: EntityType[] | undefined;
  names?: string[] | undefined;
  mode?: 'mask' | 'tag' | 'pseudonym' | undefined;
  pseudonym_key?: string | undefined;
}

/** UTF-16 index -> code point index, so offsets mean the same in every language. */
const codePointOffset = (text: string, index: number) => Array.from(text.slice(0, index)).length;

function replacementFor(c: Candidate, value: string, input: PiiRedactInput): string {
  const mode = input.mode ?? 'tag';
  if (mode === 'mask') return '*'.repeat(Array.from(value).length);
  if (mode === 'tag') return `<${c.type}>`;
  // A keyed HMAC, never a plain hash: without the caller's key a pseudonym cannot be reversed by guessing.
  const tag = createHmac('sha256', input.pseudonym_key!).update(`${c.type}\u0000${value}`).digest('hex').slice(0, 16);
  return `<${c.type}:${tag}>`;
}

export function redactPii(input: PiiRedactInput, now: number): CommandResult {
  const wanted = new Set<EntityType>(input.entities ?? ENTITY_TYPES);
  const { found, rejected } = recognise(input.text, wanted, input.names ?? []);
  let output = '';
  let at = 0;
  const audit: JsonValue[] = [];
  for (const c of found) {
    const value = input.text.slice(c.start, c.end);
    const replacement = replacementFor(c, value, input);
    output += input.text.slice(at, c.start) + replacement;
    at = c.end;
    audit.push({ type: c.type, start: codePointOffset(input.text, c.start), end: codePointOffset(input.text, c.end), recogniser: c.recogniser, checksum: c.checksum, replacement: input.mode === 'pseudonym' ? replacement : replacement });
  }
  output += input.text.slice(at);
  const counts: Record<string, number> = {};
  for (const c of found) counts[c.type] = (counts[c.type] ?? 0) + 1;
  return utilityReceipt({
    utility: 'utils.pii-redact',
    now,
    input: input.text,
    output: { content: output, mediaType: 'text/plain; charset=utf-8' },
    ruleset: { ...PII_RULESET, entities: [...wanted], offsets: 'Unicode code points, end exclusive' },
    findings: {
      outcome: found.length === 0 ? 'NONE-FOUND' : 'REDACTED',
      mode: input.mode ?? 'tag',
      redactions: audit,
      counts,
      rejected: rejected.map((c) => ({ type: c.type, start: codePointOffset(input.text, c.start), end: codePointOffset(input.text, c.end), recogniser: c.recogniser, reason: c.reason ?? 'invalid' })),
      ...(input.mode === 'pseudonym' ? { pseudonyms: 'HMAC-SHA256 with the caller\'s key (not recorded) over type and value, first 16 hex characters' } : {}),
      limitations: [
        input.names && input.names.length > 0 ? 'person names are redacted only where they match the names list exactly' : 'person names are not detected: that needs a model; pass the names to redact in `names`',
        'postal addresses, free-text identifiers and numbers without a checksum or context are not detected',
        'a candidate whose checksum fails is listed under rejected and left in the text',
      ],
    },
  });
}
