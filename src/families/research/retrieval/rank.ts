import type { JsonObject } from '../../../signing/rfc8785.ts';
import type { Sentence } from './text-units.ts';

/** The retrieval's fixed parameters: part of every record's ruleset, so JSON as declared. */
export const RETRIEVAL_RULES = {
  bm25: { k1: 1.2, b: 0.75, idf: 'ln((N - df + 0.5) / (df + 0.5) + 1)' },
  textrank: { damping: 0.85, iterations: 50, similarity: 'shared words / (ln|Si| + ln|Sj|) (Mihalcea and Tarau, 2004)' },
  score: '0.7 x BM25 / max BM25 + 0.3 x TextRank / max TextRank, rounded to 6 decimals',
  mmr: { lambda: 0.7, similarity: 'cosine of word counts', ties: 'earlier position (source id, then offset)' },
} as const satisfies JsonObject;

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

export function bm25Scores(sentences: Sentence[], query: string[]): number[] {
  const { k1, b } = RETRIEVAL_RULES.bm25;
  const n = sentences.length;
  const avgdl = sentences.reduce((s, x) => s + x.words.length, 0) / Math.max(n, 1) || 1;
  const terms = [...new Set(query)].sort();
  const df = new Map(terms.map((t) => [t, sentences.filter((s) => s.words.includes(t)).length]));
  return sentences.map((s) => {
    let score = 0;
    for (const t of terms) {
      const tf = s.words.filter((w) => w === t).length;
      if (tf === 0) continue;
      const idf = Math.log((n - df.get(t)! + 0.5) / (df.get(t)! + 0.5) + 1);
      score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * s.words.length) / avgdl));
    }
    return score;
  });
}

function similarity(a: Sentence, b: Sentence): number {
  if (a.words.length < 2 || b.words.length < 2) return 0;
  const setB = new Set(b.words);
  const shared = new Set(a.words.filter((w) => setB.has(w))).size;
  return shared / (Math.log(a.words.length) + Math.log(b.words.length));
}

/** PageRank over the sentence similarity graph, a fixed number of iterations (no convergence test: determinism). */
export function textRankScores(sentences: Sentence[]): number[] {
  const { damping, iterations } = RETRIEVAL_RULES.textrank;
  const n = sentences.length;
  const weights = sentences.map((a, i) => sentences.map((b, j) => (i === j ? 0 : similarity(a, b))));
  const outSum = weights.map((row) => row.reduce((s, w) => s + w, 0));
  let rank = new Array<number>(n).fill(1 / Math.max(n, 1));
  for (let it = 0; it < iterations; it++) {
    rank = rank.map((_, i) => (1 - damping) / n + damping * weights.reduce((s, row, j) => (outSum[j]! > 0 ? s + (row[i]! / outSum[j]!) * rank[j]! : s), 0));
  }
  return rank;
}

export function combinedScores(sentences: Sentence[], query: string[]): number[] {
  const bm25 = bm25Scores(sentences, query);
  const tr = textRankScores(sentences);
  // Reduced, not spread: a long document's sentences as arguments would overflow the stack.
  const [maxB, maxT] = [bm25.reduce((a, b) => Math.max(a, b), 0), tr.reduce((a, b) => Math.max(a, b), 0)];
  return sentences.map((_, i) => round6(0.7 * (maxB > 0 ? bm25[i]! / maxB : 0) + 0.3 * (maxT > 0 ? tr[i]! / maxT : 0)));
}

function cosine(a: string[], b: string[]): number {
  const count = (ws: string[]) => ws.reduce((m, w) => m.set(w, (m.get(w) ?? 0) + 1), new Map<string, number>());
  const [ca, cb] = [count(a), count(b)];
  let dot = 0;
  for (const [w, x] of ca) dot += x * (cb.get(w) ?? 0);
  const norm = (c: Map<string, number>) => Math.sqrt([...c.values()].reduce((s, x) => s + x * x, 0));
  return dot === 0 ? 0 : dot / (norm(ca) * norm(cb));
}

/**
 * Maximal marginal relevance (Carbonell and Goldstein, 1998): each pick maximises
 * lambda x score - (1 - lambda) x the highest similarity to what is already picked. Values are
 * rounded before comparison and ties go to the earlier position, so the pick is the same on every
 * machine and in every input order. `sentences` must already be in canonical position order.
 */
export function selectByMmr(sentences: Sentence[], scores: number[], k: number): number[] {
  const { lambda } = RETRIEVAL_RULES.mmr;
  const chosen: number[] = [];
  const candidates = sentences.map((_, i) => i).filter((i) => scores[i]! > 0);
  while (chosen.length < k && chosen.length < candidates.length) {
    let best = -1;
    let bestValue = -Infinity;
    for (const i of candidates) {
      if (chosen.includes(i)) continue;
      const redundancy = chosen.reduce((most, j) => Math.max(most, cosine(sentences[i]!.words, sentences[j]!.words)), 0);
      const value = round6(lambda * scores[i]! - (1 - lambda) * redundancy);
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    }
    if (best < 0) break;
    chosen.push(best);
  }
  return chosen;
}
