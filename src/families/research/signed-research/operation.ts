import { z } from 'zod';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { DEFAULT_TOPIC, researchTopic } from './engine.ts';
import { LIBRARY, LIBRARY_REF, operatorDocumentsOf } from './library.ts';

const input = z
  .object({
    topic: z.string().min(1).max(200).optional().describe(`What to research; default '${DEFAULT_TOPIC}' (the whole library). GET /v1/synthesis/verify re-checks the result.`),
  })
  .strict();

const record = z.looseObject({
  kind: z.literal('signed-research'),
  topic: z.string(),
  outcome: z.enum(['RESEARCH', 'INSUFFICIENT-DATA']),
  corpus: z.looseObject({ name: z.string(), version: z.string(), sha256: z.string() }),
  points: z.array(z.looseObject({ source_id: z.string(), quote: z.string(), citation: z.string() })),
  references: z.array(z.looseObject({ id: z.string(), citation: z.string() })),
  topics_covered: z.array(z.string()),
  generatedAt: z.number().int(),
});

const signedResearch = pricedOperation({
  id: 'signed-research',
  method: 'GET',
  path: '/v1/signed-research',
  family: 'research',
  priceUsd: '0.50',
  summary: "Signed research on a topic (query parameter topic, default 'quant research').",
  description:
    "Research from the service's own library, since the request carries no sources: a curated, versioned bibliography of the canonical literature of quantitative finance (portfolio selection, CAPM, factor models, momentum, market efficiency, option pricing, backtest overfitting and multiple testing, liquidity, ...), every bibliographic fact checked against a named source. The entries matching the topic go through the extractive retrieval of the attested brief (BM25, TextRank, MMR); every point quotes an entry's summary with its citation. The record names the library's version, data date and SHA-256, and the operator's documents (RESEARCH_LIBRARY_DIR) searched beside it with their digests. A topic nothing matches is INSUFFICIENT-DATA listing the topics covered.",
  inputFrom: 'query',
  input,
  example: { topic: 'momentum' },
  output: signedResponse(record, 'evidenceCore'),
  keyFamily: 'synthesis',
  signedMember: 'evidenceCore',
  verifyPath: '/v1/synthesis/verify',
  async precheckState(_i, deps) {
    try {
      operatorDocumentsOf(deps.settings.RESEARCH_LIBRARY_DIR);
      return undefined;
    } catch (err) {
      return { status: 503, error: 'research_library_unreadable', message: `RESEARCH_LIBRARY_DIR cannot be read (${(err as Error).message}); nothing was charged`, retryAfterSeconds: 60 };
    }
  },
  command: { execute: async (i, ctx) => ({ record: researchTopic(i.topic ?? DEFAULT_TOPIC, LIBRARY, { ...LIBRARY_REF }, ctx.now, operatorDocumentsOf(ctx.settings.RESEARCH_LIBRARY_DIR)) }) },
});

export const signedResearchRoutes: Route[] = [signedResearch];
