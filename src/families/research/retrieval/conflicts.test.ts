import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_CLAIMS_LISTED, MAX_CONFLICT_TERMS, numberConflicts, type Located } from './conflicts.ts';
import { contentWords } from './text-units.ts';

type Claim = { source_id: string; value: string; start: number; end: number };
type Conflict = { term: string; claims: Claim[]; claims_not_listed?: number };

/** The rule read plainly: every term against every sentence, word by word (the first version's way). */
function claimsByTerm(question: string, sentences: Located[]): Map<string, Claim[]> {
  const out = new Map<string, Claim[]>();
  for (const term of [...new Set(contentWords(question))].sort()) {
    const claims: Claim[] = [];
    for (const s of sentences) {
      const words = s.text.split(/\s+/);
      const termAt = words.findIndex((w) => contentWords(w).includes(term));
      if (termAt < 0) continue;
      let nearest: { value: string; distance: number } | undefined;
      words.forEach((w, i) => {
        const found = w.match(/(?<![\w.])[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?%?|(?<![\w.])[-+]?\d+(?:\.\d+)?%?/);
        if (found && (!nearest || Math.abs(i - termAt) < nearest.distance)) nearest = { value: String(Number(found[0].replace(/[,%+]/g, ''))) + (found[0].endsWith('%') ? '%' : ''), distance: Math.abs(i - termAt) };
      });
      if (nearest) claims.push({ source_id: s.sourceId, value: nearest.value, start: s.start, end: s.end });
    }
    out.set(term, claims);
  }
  return out;
}

const located = (sourceId: string, text: string, k: number): Located => ({ sourceId, text, start: k * 100, end: k * 100 + text.length });

describe('number conflicts', () => {
  it('agree with the rule read plainly: the same terms in conflict, each source value listed once where first stated', () => {
    const word = fc.constantFrom('premium', 'momentum', 'return', 'size', 'value', 'per', 'month', 'the', 'of');
    const token = fc.oneof(word, fc.constantFrom('1%', '0.6%', '1,200', '1200', '12', '-3', '4.50%', '4.5%', '7'));
    const sentence = fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.array(token, { minLength: 1, maxLength: 12 }));
    fc.assert(
      fc.property(fc.array(sentence, { maxLength: 25 }), (drawn) => {
        const question = 'How large is the premium and momentum return of size and value?';
        const sentences = drawn.map(([source, words], k) => located(source, words.join(' '), k));
        const { conflicts, termsNotListed } = numberConflicts(question, sentences) as { conflicts: Conflict[]; termsNotListed: number };
        expect(termsNotListed).toBe(0);
        const plain = claimsByTerm(question, sentences);
        const inConflict = [...plain].filter(([, claims]) => claims.some((a) => claims.some((b) => a.source_id !== b.source_id && a.value !== b.value))).map(([term]) => term);
        expect(conflicts.map((c) => c.term)).toEqual(inConflict);
        for (const c of conflicts) {
          const firstOfEach = new Map<string, Claim>();
          for (const claim of plain.get(c.term)!) if (!firstOfEach.has(`${claim.source_id} ${claim.value}`)) firstOfEach.set(`${claim.source_id} ${claim.value}`, claim);
          expect(new Set(c.claims.map((x) => JSON.stringify(x)))).toEqual(new Set([...firstOfEach.values()].map((x) => JSON.stringify(x))));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('stay small whatever the sources hold: a question of 90 terms, 400 sentences holding each term beside its own number', () => {
    const terms = Array.from({ length: 90 }, (_, i) => `term${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
    const sentences = Array.from({ length: 400 }, (_, k) => located(`s${k % 20}`, terms.map((t, i) => `${t} ${k * 1000 + i}`).join(' '), k));
    const { conflicts, termsNotListed } = numberConflicts(terms.join(' '), sentences) as { conflicts: Conflict[]; termsNotListed: number };
    expect(conflicts).toHaveLength(MAX_CONFLICT_TERMS);
    expect(termsNotListed).toBe(90 - MAX_CONFLICT_TERMS);
    for (const c of conflicts) {
      expect(c.claims).toHaveLength(MAX_CLAIMS_LISTED);
      expect(c.claims_not_listed).toBe(400 - MAX_CLAIMS_LISTED);
      // Every source's first value comes before any source's second.
      expect(new Set(c.claims.slice(0, 20).map((x) => x.source_id)).size).toBe(20);
    }
    expect(JSON.stringify(conflicts).length).toBeLessThan(250_000);
  });
});
