import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { RETRIEVAL_RULES } from '../retrieval/rank.ts';
import { retrieve } from '../retrieval/retrieve.ts';
import { contentWords } from '../retrieval/text-units.ts';
import type { Library, LibraryEntry, OperatorDocument } from './library.ts';

export const DEFAULT_TOPIC = 'quant research';
export const RESEARCH_POINTS = 6;
/** Topics that name the whole library rather than a part of it. */
const WHOLE_LIBRARY = new Set(['quant research', 'quantitative research', 'quantitative finance', 'quant finance']);

/** Two words match when equal, or when one begins the other and the shorter has 4 letters or more (option, options). */
const wordsMatch = (a: string, b: string) => a === b || (Math.min(a.length, b.length) >= 4 && (a.startsWith(b) || b.startsWith(a)));
const overlaps = (query: string[], words: string[]) => query.some((q) => words.some((w) => wordsMatch(q, w)));
const sharedWords = (query: string[], words: string[]) => query.filter((q) => words.some((w) => wordsMatch(q, w))).length;

function matchEntries(topic: string, library: Library): { entries: LibraryEntry[]; matchedBy: string; matchedTopics: string[] } {
  if (WHOLE_LIBRARY.has(topic)) return { entries: library.entries, matchedBy: 'the whole library', matchedTopics: library.topics };
  const query = contentWords(topic);
  // The tags sharing the most words with the topic: "option pricing" is not also "asset pricing".
  const shared = library.topics.map((t) => ({ t, n: sharedWords(query, contentWords(t)) }));
  const best = Math.max(0, ...shared.map((s) => s.n));
  const matchedTopics = best === 0 ? [] : shared.filter((s) => s.n === best).map((s) => s.t);
  if (matchedTopics.length > 0) return { entries: library.entries.filter((e) => e.topics.some((t) => matchedTopics.includes(t))), matchedBy: 'topic tags', matchedTopics };
  const byText = library.entries.filter((e) => overlaps(query, contentWords(`${e.title} ${e.summary}`)));
  return { entries: byText, matchedBy: 'words of titles and summaries', matchedTopics: [] };
}

/** The operator's documents that share a word with the topic (every one for the whole library). */
function matchOperatorDocuments(topic: string, docs: readonly OperatorDocument[]): OperatorDocument[] {
  if (WHOLE_LIBRARY.has(topic)) return [...docs];
  const query = contentWords(topic);
  return docs.filter((d) => overlaps(query, contentWords(`${d.title} ${d.text}`)));
}

/**
 * Research from the service's own library, since the request carries no sources: the entries
 * that match the topic (by their tags, else by the words of their titles and summaries), and the
 * operator's documents that share a word with it, then the extractive retrieval of the attested
 * brief over their text. Every point quotes a summary of this library (or an operator document)
 * and names it; the references give the full citations.
 */
export function researchTopic(rawTopic: string, library: Library, libraryRef: JsonObject, now: number, operatorDocs: readonly OperatorDocument[] = []): JsonObject {
  const topic = rawTopic.normalize('NFKC').trim().toLowerCase().replace(/\s+/g, ' ');
  const base = {
    kind: 'signed-research',
    ruleset: { id: 'signed-research', version: '1', retrieval: { ...RETRIEVAL_RULES }, data: [{ name: libraryRef['name'] ?? null, version: libraryRef['version'] ?? null, sha256: libraryRef['sha256'] ?? null, data_date: libraryRef['data_date'] ?? null }] },
    topic,
    corpus: { ...libraryRef, operator_documents: operatorDocs.map((d) => ({ file: d.file, sha256: d.sha256 })) },
    topics_covered: library.topics,
    evidence_source: operatorDocs.length > 0 ? 'service-library and operator documents' : 'service-library',
    limitations: [
      'the library is a curated bibliography shipped with the service; it is not a search of the literature',
      'points quote the summaries this library wrote of each work, not the works themselves; read the cited work before relying on it',
      'bibliographic facts that could not be confirmed against a source on the data date are null',
      ...(operatorDocs.length > 0 ? ["operator documents are the operator's own files, quoted as they are and not checked by the service"] : []),
    ],
  };
  const match = matchEntries(topic, library);
  const operator = matchOperatorDocuments(topic, operatorDocs);
  if (match.entries.length === 0 && operator.length === 0)
    return { ...base, outcome: 'INSUFFICIENT-DATA', reason: `no entry of the library matches "${topic}": see topics_covered`, matched_by: null, matched_topics: [], points: [], references: [], generatedAt: now };
  const documents = [...match.entries.map((e) => ({ id: e.id, title: e.title, text: e.summary })), ...operator.map((d) => ({ id: d.id, title: d.title, text: d.text }))];
  const found = retrieve(match.matchedTopics.length > 0 ? `${topic} ${match.matchedTopics.join(' ')}` : topic, documents, RESEARCH_POINTS);
  const citations = new Map<string, string>([...match.entries.map((e) => [e.id, citationOf(e)] as const), ...operator.map((d) => [d.id, `operator document ${d.file} (sha256 ${d.sha256})`] as const)]);
  const references: JsonValue[] = [
    ...[...match.entries].sort((a, b) => a.year - b.year || (a.id < b.id ? -1 : 1)).map((e) => ({ id: e.id, citation: citationOf(e), doi: e.doi, topics: e.topics, checked_against: e.checked_against })),
    ...operator.map((d) => ({ id: d.id, citation: citations.get(d.id)!, doi: null, topics: [], checked_against: null })),
  ];
  const points = (found.points as JsonObject[]).map((p) => ({ ...p, citation: citations.get(String(p['source_id']))! }));
  return { ...base, outcome: 'RESEARCH', matched_by: match.entries.length > 0 ? match.matchedBy : 'operator documents', matched_topics: match.matchedTopics, points, references, generatedAt: now };
}

/** A citation as a reader writes it down. */
export function citationOf(e: LibraryEntry): string {
  const where = [e.volume !== null ? `${e.volume}${e.issue !== null ? `(${e.issue})` : ''}` : null, e.pages].filter((x) => x !== null).join(', ');
  return `${e.authors.join(', ')} (${e.year}). ${e.title}. ${e.venue}${where ? ` ${where}` : ''}.${e.doi ? ` doi:${e.doi}` : ''}`;
}
