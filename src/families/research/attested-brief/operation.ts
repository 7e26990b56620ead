import { z } from 'zod';
import { documentSentencesUpTo, MAX_RANKED_SENTENCES } from '../retrieval/retrieve.ts';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { fromThreadedEngine } from '../../../kernel/engine-threads/threaded-command.ts';
import { moduleBeside } from '../../../kernel/worker-script.ts';
import { signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { DEFAULT_POINTS } from './engine.ts';

const source = z
  .object({
    id: z.string().min(1).max(100),
    title: z.string().min(1).max(500),
    url: z.url().max(2_000).optional(),
    published_at: z.iso.date().optional(),
    text: z.string().max(100_000),
  })
  .strict();

const input = z
  .object({
    question: z.string().min(3).max(1_000),
    sources: z.array(source).min(1).max(20),
    max_points: z.number().int().min(1).max(20).optional().describe(`Default ${DEFAULT_POINTS}`),
  })
  .strict();

export const BRIEF_EXAMPLE = {
  question: 'How large is the momentum premium?',
  sources: [
    { id: 'jt1993', title: 'Returns to Buying Winners and Selling Losers', published_at: '1993-03-01', text: 'Strategies that buy past winners and sell past losers over 3 to 12 months earn abnormal returns. The momentum premium was about 1% per month over 1965 to 1989. The profits are not due to systematic risk.' },
    { id: 'survey', title: 'A survey of momentum', text: 'Later samples report a smaller momentum premium of 0.6% per month after costs. Momentum crashes occur after market rebounds. The effect appears in many asset classes.' },
  ],
};

export const attestedBrief = pricedOperation({
  id: 'research.attested-brief',
  method: 'POST',
  path: '/v1/research/attested-brief',
  family: 'research',
  priceUsd: '2.00',
  summary: 'Deterministic signed brief with source citations; only generatedAt varies.',
  description:
    'An extractive brief: sentences segmented by Unicode rules, ranked by BM25 against the question and by TextRank centrality, chosen with maximal marginal relevance; each point a verbatim quote with its source id, code point offsets and the source\'s SHA-256. Numbers that disagree across sources about the same question term are listed as conflicts; sources without usable text are listed as unusable; fewer than 2 usable sources give INSUFFICIENT-DATA. More than 2,000 sentences to rank is 422 before the quote. Scores are rounded and ties broken by position, so the record is the same for the same sources in any order.',
  inputFrom: 'json',
  input,
  example: BRIEF_EXAMPLE,
  output: signedResponse(z.looseObject({ kind: z.literal('research-brief'), outcome: z.enum(['BRIEF', 'INSUFFICIENT-DATA']), points: z.array(z.looseObject({ quote: z.string(), source_id: z.string() })), conflicts: z.array(z.looseObject({})), generatedAt: z.number().int() }), 'evidenceCore'),
  keyFamily: 'synthesis',
  signedMember: 'evidenceCore',
  verifyPath: '/v1/synthesis/verify',
  precheck(i) {
    const ids = i.sources.map((s) => s.id);
    const duplicate = ids.find((id, k) => ids.indexOf(id) !== k);
    if (duplicate !== undefined) return { status: 422, error: 'duplicate_source_id', message: `source id ${duplicate} appears twice: ids name the citations`, outcome: 'INVALID-INPUT', issues: [{ path: `sources.${ids.lastIndexOf(duplicate)}.id`, message: 'duplicate id' }] };
    if (documentSentencesUpTo(i.sources, MAX_RANKED_SENTENCES) <= MAX_RANKED_SENTENCES) return undefined;
    const message = `the sources hold more than ${MAX_RANKED_SENTENCES} sentences; at most ${MAX_RANKED_SENTENCES} are ranked (each is compared with every other)`;
    return { status: 422, error: 'too_many_sentences', message, outcome: 'INVALID-INPUT', issues: [{ path: 'sources', message }] };
  },
  // On an engine thread: 2,000 sentences, or a question whose every term each sentence holds, take it 7-28 s.
  command: fromThreadedEngine(moduleBeside(import.meta.url, 'engine'), 'composeBriefResult'),
});

export const attestedBriefRoutes: Route[] = [attestedBrief];
