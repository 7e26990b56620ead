import type { JsonValue } from '../../../signing/rfc8785.ts';
import { contentWords } from './text-units.ts';

export interface Located {
  sourceId: string;
  text: string;
  start: number;
  end: number;
}

const NUMBER = /(?<![\w.])[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?%?|(?<![\w.])[-+]?\d+(?:\.\d+)?%?/g;

/** "1,200" -> "1200", "4.50%" -> "4.5%": one spelling per value, so only real differences count. */
function normaliseNumber(text: string): string {
  const percent = text.endsWith('%');
  const digits = text.replace(/[,%+]/g, '');
  const value = Number(digits);
  return `${Number.isFinite(value) ? String(value) : digits}${percent ? '%' : ''}`;
}

/**
 * Numbers that disagree across sources about the same term. A term is a content word of the
 * question; a sentence states a number about it when it contains the term, and the number it
 * states is the one nearest to the term in words. Two sources giving different numbers for the
 * same term are a conflict, listed with every value and where it was said.
 */
export function numberConflicts(question: string, sentences: Located[]): JsonValue[] {
  const terms = [...new Set(contentWords(question))].sort();
  const conflicts: JsonValue[] = [];
  for (const term of terms) {
    const claims: Array<{ source_id: string; value: string; start: number; end: number }> = [];
    for (const s of sentences) {
      const words = s.text.split(/\s+/);
      const termAt = words.findIndex((w) => contentWords(w).includes(term));
      if (termAt < 0) continue;
      let nearest: { value: string; distance: number } | undefined;
      words.forEach((w, i) => {
        const found = w.match(NUMBER);
        if (!found) return;
        const distance = Math.abs(i - termAt);
        if (!nearest || distance < nearest.distance) nearest = { value: normaliseNumber(found[0]), distance };
      });
      if (nearest) claims.push({ source_id: s.sourceId, value: nearest.value, start: s.start, end: s.end });
    }
    const disagree = claims.some((a) => claims.some((b) => a.source_id !== b.source_id && a.value !== b.value));
    if (disagree) conflicts.push({ term, claims });
  }
  return conflicts;
}
