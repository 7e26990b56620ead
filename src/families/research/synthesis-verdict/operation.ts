import { z } from 'zod';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { hex64, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';
// Parsed from a JSON body, so every value is JSON; the schema says unknown to keep $refs out of the published documents.
import { checkBlockSignature, type SignedBlockEvidence } from './block-signatures.ts';
import { foldVerdict, VERDICT_RULESET } from './engine.ts';

const signedEvidence = z
  .object({
    record: z.record(z.string(), z.unknown()).describe('The signed record (evidenceCore, sealed, ... of a result)'),
    sha256: hex64,
    ed25519Sig: z.string().regex(/^[0-9a-f]{128}$/, 'must be 128 lowercase hex characters'),
    publicKey: z.string().regex(/^[0-9a-f]{64}$/, 'must be a raw Ed25519 public key, 64 lowercase hex characters').optional().describe('For a signer other than this service; omit for results of this service'),
  })
  .strict();

const block = z
  .object({
    type: z.enum(['research', 'quant', 'audit']),
    stance: z.enum(['supports', 'refutes', 'neutral']),
    strength: z.number().min(0).max(1).optional().describe(`0 to 1; default ${VERDICT_RULESET.default_strength}`),
    content: z.string().max(20_000).describe('What the block says; an empty content is listed and not counted'),
    signed: signedEvidence.optional(),
  })
  .strict();

const verdictInput = z.object({ question: z.string().min(1).max(2_000), blocks: z.array(block).min(1, 'must contain at least one block').max(50) }).strict();

const verdictRecord = z.looseObject({
  kind: z.literal('synthesis-verdict'),
  verdict: z.enum(['SUPPORTED', 'REFUTED', 'CONTESTED', 'INCONCLUSIVE', 'INSUFFICIENT-DATA']),
  outcome: z.string(),
  score: z.number().nullable(),
  disagreement: z.number().nullable(),
  usable_blocks: z.number().int(),
  composedAt: z.number().int(),
});

export const VERDICT_EXAMPLE: z.input<typeof verdictInput> = {
  question: 'Does the momentum factor earn a premium after costs?',
  blocks: [
    {
      type: 'research',
      stance: 'supports',
      strength: 0.8,
      content: 'Jegadeesh and Titman (1993) document returns to buying past 3-12 month winners and selling losers.',
      signed: {
        record: { kind: 'literature-note', citation: 'Jegadeesh, N. and Titman, S. (1993). Returns to Buying Winners and Selling Losers. Journal of Finance 48(1), 65-91.', finding: 'positive returns to 3-12 month momentum portfolios' },
        sha256: 'f2a1a81f4ba924ba175fbdad5b0fbc04e2211b177a86ea11b4f360325c6a771b',
        ed25519Sig: '44a36a9b8cf2120cea6838d69e620e4c796f246f349cd6b338b3b2a5a25efe5401fe5d979372867bd9d939d6e86b1560e6a450cf67263c7e6289cd0fea8bd708',
        publicKey: '370424df1a6233e3f377384500a7818b42aa1f3198012ee6089dd3ef69fecbb3',
      },
    },
    {
      type: 'quant',
      stance: 'supports',
      strength: 0.7,
      content: 'Backtest 1990-2024: 0.6% monthly excess return after 20 bp costs.',
      signed: {
        record: { kind: 'backtest-summary', strategy: '12-1 momentum, US large caps', period: '1990-2024', monthly_excess_return: '0.006', costs_bp: 20 },
        sha256: '5f8dfb49c4c11550c5ae1651535db83118a546046e41fe29b898e8c1ca899d83',
        ed25519Sig: 'ec5a9b8e89e84f943550c93a9f513d773428a7a8f991147007d0923436a5f41120004e48d6bdb36581d911b6e60eb90a23cd9ec72831d58a0e63e1c41488830a',
        publicKey: '370424df1a6233e3f377384500a7818b42aa1f3198012ee6089dd3ef69fecbb3',
      },
    },
  ],
};

const verdict = pricedOperation({
  id: 'synthesis.verdict',
  method: 'POST',
  path: '/v1/synthesis/verdict',
  family: 'research',
  priceUsd: '0.50',
  summary: 'Folds research, quant and audit evidence blocks into one signed verdict.',
  description:
    'Each block\'s signature is checked offline: a result of this service (its own keys, the key of the result\'s time), an external Ed25519 signature with the supplied key, or unsigned (weight 0, listed). Usable blocks fold with the published weight table into SUPPORTED, REFUTED, CONTESTED or INCONCLUSIVE with the score, the disagreement and a term of the IPCC likelihood scale; fewer than 2 usable blocks give INSUFFICIENT-DATA and no score.',
  inputFrom: 'json',
  input: verdictInput,
  example: VERDICT_EXAMPLE,
  output: signedResponse(verdictRecord, 'evidenceCore'),
  keyFamily: 'synthesis',
  signedMember: 'evidenceCore',
  verifyPath: '/v1/synthesis/verify',
  command: {
    async execute(input, ctx) {
      const blocks = input.blocks.map((b) => ({ type: b.type, stance: b.stance, strength: b.strength, content: b.content, signature: checkBlockSignature(b.signed as SignedBlockEvidence | undefined, ctx.keyring) }));
      return { record: foldVerdict({ question: input.question, blocks }, ctx.now) };
    },
  },
});

// On POST too: briefs and finance records are often too large for a URL.
const synthesisVerify = verifyRouteOnGetAndPost({ id: 'synthesis.verify', path: '/v1/synthesis/verify', family: 'research', keyFamily: 'synthesis', summary: 'Re-checks a synthesis verdict, brief, research or finance record (body = the evidenceCore as JSON text).', params: bodyVerifyParams, rebuild: rebuildFromBody });

export const synthesisVerdict: Route[] = [verdict, ...synthesisVerify];
