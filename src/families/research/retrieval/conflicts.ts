import type { JsonValue } from '../../../signing/rfc8785.ts';
import { contentWords } from './text-units.ts';

export interface Located {
  sourceId: string;
  text: string;
  start: number;
  end: number;
}

const NUMBER = /(?<![\w.])[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?%?|(?<![\w.])[-+]?\d+(?:\.\d+)?%?/g;
const HAS_DIGIT = /\d/;

/** Per term, claims listed; the rest are counted, not listed: the record stays small whatever the sources hold. */
export const MAX_CLAIMS_LISTED = 40;
/** Terms in conflict listed (in alphabetical order); the rest are counted. */
export const MAX_CONFLICT_TERMS = 50;

export const CONFLICT_RULES = {
  claim: 'in each sentence that mentions a content word of the question, the number nearest to it in words (the earlier on a tie)',
  conflict: 'two sources giving different numbers for the same term',
  listed: `each source's value once, where it is first stated; per term at most ${MAX_CLAIMS_LISTED} claims, each source's first value before any source's second; at most ${MAX_CONFLICT_TERMS} terms, in alphabetical order; the rest counted`,
} as const;

/** "1,200" -> "1200", "4.50%" -> "4.5%": one spelling per value, so only real differences count. */
function normaliseNumber(text: string): string {
  const percent = text.endsWith('%');
  const digits = text.replace(/[,%+]/g, '');
  const value = Number(digits);
  return `${Number.isFinite(value) ? String(value) : digits}${percent ? '%' : ''}`;
}

/** Where in a sentence (in whitespace-separated words) each question term first appears, and each number. */
interface SentenceFacts {
  termAt: Map<string, number>;
  numbers: Array<{ at: number; value: string }>;
}

function factsOf(text: string, terms: ReadonlySet<string>): SentenceFacts | undefined {
  if (!HAS_DIGIT.test(text)) return undefined;
  const termAt = new Map<string, number>();
  const numbers: SentenceFacts['numbers'] = [];
  text.split(/\s+/).forEach((word, at) => {
    const found = word.match(NUMBER);
    if (found) numbers.push({ at, value: normaliseNumber(found[0]) });
    for (const w of contentWords(word)) if (terms.has(w) && !termAt.has(w)) termAt.set(w, at);
  });
  return numbers.length > 0 && termAt.size > 0 ? { termAt, numbers } : undefined;
}

function nearestNumber(facts: SentenceFacts, termAt: number): string {
  let nearest = facts.numbers[0]!;
  for (const n of facts.numbers) if (Math.abs(n.at - termAt) < Math.abs(nearest.at - termAt)) nearest = n;
  return nearest.value;
}

type Claim = {
  source_id: string;
  value: string;
  start: number;
  end: number;
};

/** Each source's value once (where first stated), each source's first value before any second, at most MAX_CLAIMS_LISTED. */
function listed(claims: Claim[]): { claims: Claim[]; notListed: number } {
  const seen = new Set<string>();
  const rankInSource = new Map<string, number>();
  const distinct: Array<{ claim: Claim; rank: number; order: number }> = [];
  for (const claim of claims) {
    const key = JSON.stringify([claim.source_id, claim.value]);
    if (seen.has(key)) continue;
    seen.add(key);
    const rank = rankInSource.get(claim.source_id) ?? 0;
    rankInSource.set(claim.source_id, rank + 1);
    distinct.push({ claim, rank, order: distinct.length });
  }
  distinct.sort((a, b) => a.rank - b.rank || a.order - b.order);
  return { claims: distinct.slice(0, MAX_CLAIMS_LISTED).map((d) => d.claim), notListed: Math.max(0, distinct.length - MAX_CLAIMS_LISTED) };
}

/**
 * Numbers that disagree across sources about the same term (CONFLICT_RULES). Each sentence is
 * read once, whatever the number of terms: pairing every term with every sentence word by word
 * took 28 s for 400 sentences that each held a 90-word question's every term.
 */
export function numberConflicts(question: string, sentences: Located[]): { conflicts: JsonValue[]; termsNotListed: number } {
  const terms = [...new Set(contentWords(question))].sort();
  const claimsOf = new Map<string, Claim[]>(terms.map((t) => [t, []]));
  const termSet = new Set(terms);
  for (const s of sentences) {
    const facts = factsOf(s.text, termSet);
    if (!facts) continue;
    for (const [term, at] of facts.termAt) claimsOf.get(term)!.push({ source_id: s.sourceId, value: nearestNumber(facts, at), start: s.start, end: s.end });
  }
  const conflicts: JsonValue[] = [];
  let termsNotListed = 0;
  for (const term of terms) {
    const claims = claimsOf.get(term)!;
    // Two claims from different sources with different values exist exactly when there are two sources and two values.
    const disagree = new Set(claims.map((c) => c.source_id)).size > 1 && new Set(claims.map((c) => c.value)).size > 1;
    if (!disagree) continue;
    if (conflicts.length >= MAX_CONFLICT_TERMS) {
      termsNotListed++;
      continue;
    }
    const shown = listed(claims);
    conflicts.push({ term, claims: shown.claims, ...(shown.notListed > 0 ? { claims_not_listed: shown.notListed } : {}) });
  }
  return { conflicts, termsNotListed };
}
