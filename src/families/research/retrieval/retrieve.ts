import type { JsonValue } from '../../../signing/rfc8785.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import { numberConflicts } from './conflicts.ts';
import { combinedScores, selectByMmr } from './rank.ts';
import { contentWords, sentenceCountUpTo, sentencesOf, type Sentence } from './text-units.ts';

export interface Document {
  id: string;
  title: string;
  url?: string | undefined;
  published_at?: string | undefined;
  text: string;
}

const MIN_USABLE_CHARS = 40;
const MIN_SENTENCE_WORDS = 3;
/**
 * TextRank compares every ranked sentence with every other, 50 times over: 5,000 sentences (a
 * 100,000-character source of short lines) took 90 s and hundreds of MB. At this many it takes
 * about 2 s; a 100,000-character article holds some 1,000. Counted before the quote as all the
 * sentences of the sources (a bound on those ranked, which need three content words), with the
 * sentence segmenter alone and no further than the limit: counting words there too took 0.6 s
 * for a megabyte of sources, free of charge to whoever sent it.
 */
export const MAX_RANKED_SENTENCES = 2_000;

function described(documents: Document[]) {
  const ordered = [...documents].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return ordered.map((d) => {
    const sentences = sentencesOf(d.text).filter((s) => s.words.length >= MIN_SENTENCE_WORDS);
    const reason = d.text.trim().length < MIN_USABLE_CHARS ? `fewer than ${MIN_USABLE_CHARS} characters of text` : sentences.length === 0 ? `no sentence of at least ${MIN_SENTENCE_WORDS} content words` : null;
    return { doc: d, sentences, reason };
  });
}

/** The sentences of all the documents, counted no further than `stopAbove` + 1. */
export function documentSentencesUpTo(documents: Document[], stopAbove: number): number {
  let count = 0;
  for (const d of documents) if ((count += sentenceCountUpTo(d.text, stopAbove - count)) > stopAbove) break;
  return count;
}

/**
 * Extractive retrieval over documents: usable documents in id order (input order never matters),
 * sentences by Unicode rules, BM25 against the question blended with TextRank centrality, picked
 * by maximal marginal relevance; every point a verbatim quote with its offsets and its
 * document's SHA-256; numbers that disagree across documents about a question term listed.
 */
export function retrieve(question: string, documents: Document[], maxPoints: number) {
  const documentsRead = described(documents).map((d) => ({ ...d, sha256: sha256Hex(d.doc.text) }));
  const usable = documentsRead.filter((d) => d.reason === null);
  const pool: Array<Sentence & { docIndex: number }> = usable.flatMap((d, docIndex) => d.sentences.map((s) => ({ ...s, docIndex })));
  const query = contentWords(question);
  const scores = combinedScores(pool, query);
  const picked = selectByMmr(pool, scores, maxPoints);
  const points: JsonValue[] = picked.map((i, rank) => {
    const s = pool[i]!;
    const d = usable[s.docIndex]!;
    return { rank: rank + 1, source_id: d.doc.id, quote: s.text, start: s.start, end: s.end, source_sha256: d.sha256, score: scores[i]! };
  });
  const { conflicts, termsNotListed } = numberConflicts(question, pool.map((s) => ({ sourceId: usable[s.docIndex]!.doc.id, text: s.text, start: s.start, end: s.end })));
  const sources: JsonValue[] = documentsRead.map((d) => ({ id: d.doc.id, title: d.doc.title, url: d.doc.url ?? null, published_at: d.doc.published_at ?? null, sha256: d.sha256, usable: d.reason === null, ...(d.reason ? { reason: d.reason } : {}) }));
  return { points, conflicts, conflictTermsNotListed: termsNotListed, sources, usableCount: usable.length, sentenceCount: pool.length };
}
