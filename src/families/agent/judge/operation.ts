import { z } from 'zod';
import { fromEngine, pricedOperation, type Refusal, type Route } from '../../../kernel/operation.ts';
import { hex64, jsonObject, rulesetMember, signedResponse, token } from '../../../kernel/route-kit/schemas.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';
import { gradeResponsePair, JUDGE_COST_LIMIT, JUDGE_OUTCOMES, JUDGE_RULESET, rubricCost, type JudgeInput } from './engine.ts';
import { SUPPORTED_SCHEMA_KEYWORDS } from './metrics.ts';

const criterionBase = { id: token, weight: z.number().gt(0).max(1000) };
const text = (max: number) => z.string().max(max);
const ratio = z.number().min(0).max(1);

const judgeCriterion = z.discriminatedUnion('type', [
  z.object({ ...criterionBase, type: z.enum(['contains', 'not_contains']), text: text(1000).min(1), case_sensitive: z.boolean().optional() }).strict(),
  z
    .object({ ...criterionBase, type: z.literal('regex'), pattern: text(256).min(1), flags: z.string().regex(/^(?!.*(.).*\1)[imsu]{0,4}$/, 'must be distinct flags among i, m, s, u').optional() })
    .strict()
    .superRefine((c, ctx) => {
      try {
        new RegExp(c.pattern, c.flags ?? '');
      } catch (err) {
        ctx.addIssue({ code: 'custom', path: ['pattern'], message: `does not compile: ${(err as Error).message}` });
      }
    }),
  z.object({ ...criterionBase, type: z.literal('json_schema'), schema: jsonObject }).strict(),
  z
    .object({ ...criterionBase, type: z.literal('length'), unit: z.enum(['chars', 'words']), min: z.number().int().min(0).optional(), max: z.number().int().min(0).optional() })
    .strict()
    .describe('At least one of min and max, and min not above max (checked before the quote: length_bounds)'),
  z.object({ ...criterionBase, type: z.literal('edit_distance'), min_similarity: ratio.optional() }).strict(),
  z.object({ ...criterionBase, type: z.literal('ngram_overlap'), n: z.number().int().min(1).max(5).optional(), min_score: ratio.optional() }).strict(),
]);

const judgeInput = z
  .object({
    prompt: text(20_000).optional().describe('Carried only as a digest'),
    response_a: text(20_000),
    response_b: text(20_000),
    reference: text(20_000).optional().describe('Needed by edit_distance and ngram_overlap'),
    rubric: z
      .array(judgeCriterion)
      .min(1, 'must contain at least one criterion')
      .max(32)
      .refine((r) => new Set(r.map((c) => c.id)).size === r.length, 'criterion ids must be unique'),
  })
  .strict();

const judgeSide = z.object({ score: ratio, passed: z.boolean(), detail: z.string() });
const judgeRecordSchema = z.object({
  kind: z.literal('judge-grade'),
  ruleset: rulesetMember(JUDGE_RULESET),
  outcome: z.enum(JUDGE_OUTCOMES),
  winner: z.enum(['a', 'b', 'tie']).nullable(),
  grade: z.object({ a: ratio, b: ratio }).nullable(),
  criteria: z.array(z.object({ id: z.string(), type: z.string(), weight: z.number(), a: judgeSide, b: judgeSide })),
  unassessable: z.array(z.object({ id: z.string(), type: z.string(), reason: z.string() })),
  subject: z.object({ responseASha256: hex64, responseBSha256: hex64, referenceSha256: hex64.nullable(), promptSha256: hex64.nullable(), rubricSha256: hex64 }),
  gradedAt: z.number().int(),
});

/**
 * The whole call's work, summed over the rubric and both responses, is bounded before the quote:
 * a limit per criterion let 32 criteria each just within it hold the loop 28 s.
 */
function costRefusal(input: JudgeInput): Refusal | undefined {
  const cost = rubricCost(input);
  if (cost.total <= JUDGE_COST_LIMIT) return undefined;
  const issues = [...cost.byCriterion]
    .sort((x, y) => y.cost - x.cost)
    .map(({ index, cost: units }) => ({ path: `rubric.${index}`, message: `costs ${units.toExponential(2)} units on these responses` }));
  const message = `the rubric costs ${cost.total.toExponential(2)} units of regex steps and edit-distance cells on these responses; at most ${JUDGE_COST_LIMIT.toExponential(0)} per call`;
  return { status: 422, error: 'rubric_too_costly', message, outcome: 'INVALID-INPUT', issues };
}

const judgeGrade = pricedOperation({
    id: 'mcp.eval.judge',
    method: 'POST',
    path: '/v1/mcp/eval/judge',
    family: 'agent',
    priceUsd: '0.15',
    summary: 'Grades one response pair against a rubric; deterministic; no external inference.',
    description: `Grades response_a and response_b against weighted criteria (ruleset ${JUDGE_RULESET.id}/${JUDGE_RULESET.version}): contains, not_contains, regex, json_schema (subset: ${SUPPORTED_SCHEMA_KEYWORDS.join(', ')}), length (chars or words), edit_distance and ngram_overlap against the reference. Each response's grade is the weight-averaged score over the assessable criteria; the higher grade wins, equal grades tie. Criteria that cannot be assessed are listed with the reason; when none can be, the outcome is INSUFFICIENT-DATA and no grade is given. A json_schema response must be I-JSON nested at most 32 levels, else it fails that criterion with the reason. The work of the whole call (regex backtracking steps weighted by flags, and edit-distance cells, each distinct piece of work counted once) is at most ${JUDGE_COST_LIMIT.toExponential(0)} units, else 422 rubric_too_costly before the quote.`,
    inputFrom: 'json',
    input: judgeInput,
    example: {
      prompt: 'What is the capital of France? Answer in JSON.',
      response_a: '{"capital":"Paris"}',
      response_b: 'The capital is Paris.',
      reference: '{"capital":"Paris"}',
      rubric: [
        { id: 'valid-json', weight: 2, type: 'json_schema', schema: { type: 'object', required: ['capital'], properties: { capital: { type: 'string' } } } },
        { id: 'names-paris', weight: 1, type: 'contains', text: 'paris' },
        { id: 'close-to-reference', weight: 1, type: 'edit_distance', min_similarity: 0.8 },
      ],
    },
    output: signedResponse(judgeRecordSchema, 'verdictCore'),
    keyFamily: 'judge',
    signedMember: 'verdictCore',
    verifyPath: '/v1/mcp/eval/judge/verify',
    // Rules across two members of a length criterion, which a JSON schema cannot state: refused
    // before the quote with their own error, documented in the criterion's description.
    precheck(input) {
      const issues = input.rubric.flatMap((c, i) => {
        if (c.type !== 'length') return [];
        if (c.min === undefined && c.max === undefined) return [{ path: `rubric.${i}.min`, message: 'a length criterion needs min or max' }];
        if (c.min !== undefined && c.max !== undefined && c.min > c.max) return [{ path: `rubric.${i}.min`, message: `must not exceed max (${c.max})` }];
        return [];
      });
      if (issues.length > 0) return { status: 422, error: 'length_bounds', message: `${issues[0]!.path}: ${issues[0]!.message}`, outcome: 'INVALID-INPUT', issues };
      return costRefusal(input);
    },
    command: fromEngine(gradeResponsePair),
  });

const judgeVerifyRoutes = verifyRouteOnGetAndPost({ id: 'mcp.eval.judge.verify', path: '/v1/mcp/eval/judge/verify', family: 'agent', keyFamily: 'judge', summary: 'Re-checks a judge grade (body = the verdictCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody });

export const judge: Route[] = [judgeGrade, ...judgeVerifyRoutes];
