import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { canonicalSha256, sha256Hex } from '../../../signing/hash.ts';
import {
  PATTERN_COST_LIMIT,
  codePoints,
  editSimilarity,
  ngramF1,
  patternCost,
  patternShape,
  schemaViolation,
  SUPPORTED_SCHEMA_KEYWORDS,
  unsupportedSchemaKeywords,
  wordCount,
  words,
} from './metrics.ts';

/**
 * Judge grade, ruleset `judge-rubric` version 1: one response pair against weighted deterministic
 * criteria. Each assessable criterion scores each response in [0, 1]; a response's grade is the
 * weight-averaged score over the assessable criteria (6 decimals); the higher grade wins, equal
 * grades tie. A criterion that cannot be assessed for the pair is listed with its reason and
 * left out of both grades; when none can be assessed the outcome is INSUFFICIENT-DATA and no
 * grade or winner is given.
 */
export const JUDGE_RULESET = { id: 'judge-rubric', version: '1' } as const;
export const JUDGE_OUTCOMES = ['GRADED', 'INSUFFICIENT-DATA'] as const;
/** Edit distance is quadratic: longer texts are not compared (listed as unassessable). */
export const EDIT_DISTANCE_MAX_CHARS = 4000;
export const DEFAULT_MIN_SIMILARITY = 0.8;
export const DEFAULT_MIN_OVERLAP = 0.5;

interface CriterionBase {
  id: string;
  weight: number;
}
export type JudgeCriterion = CriterionBase &
  (
    | { type: 'contains' | 'not_contains'; text: string; case_sensitive?: boolean | undefined }
    | { type: 'regex'; pattern: string; flags?: string | undefined }
    | { type: 'json_schema'; schema: JsonObject }
    | { type: 'length'; unit: 'chars' | 'words'; min?: number | undefined; max?: number | undefined }
    | { type: 'edit_distance'; min_similarity?: number | undefined }
    | { type: 'ngram_overlap'; n?: number | undefined; min_score?: number | undefined }
  );
export type JudgeCriterionType = JudgeCriterion['type'];

export interface JudgeInput {
  prompt?: string | undefined;
  response_a: string;
  response_b: string;
  reference?: string | undefined;
  rubric: readonly JudgeCriterion[];
}

interface SideResult {
  score: number;
  passed: boolean;
  detail: string;
}
type Assessment = { assessable: true; a: SideResult; b: SideResult } | { assessable: false; reason: string };

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
const pass = (ok: boolean, detail: string): SideResult => ({ score: ok ? 1 : 0, passed: ok, detail });
const graded = (score: number, threshold: number, label: string): SideResult => ({
  score: round6(score),
  passed: score >= threshold,
  detail: `${label} ${round6(score)} (pass at >= ${threshold})`,
});
const both = (f: (text: string) => SideResult, input: JudgeInput): Assessment => ({ assessable: true, a: f(input.response_a), b: f(input.response_b) });

function assess(criterion: JudgeCriterion, input: JudgeInput): Assessment {
  switch (criterion.type) {
    case 'contains':
    case 'not_contains': {
      const fold = (t: string) => (criterion.case_sensitive ? t : t.toLowerCase());
      const wanted = criterion.type === 'contains';
      return both((text) => {
        const found = fold(text).includes(fold(criterion.text));
        return pass(found === wanted, found ? 'text found' : 'text not found');
      }, input);
    }
    case 'regex': {
      const shape = patternShape(criterion.pattern);
      if (shape.unsafe) return { assessable: false, reason: shape.unsafe };
      const longest = Math.max(codePoints(input.response_a).length, codePoints(input.response_b).length);
      if (patternCost(shape, longest) > PATTERN_COST_LIMIT)
        return { assessable: false, reason: `pattern has ${shape.unbounded} unbounded quantifier(s): too costly to run on a ${longest}-character response (limit ${PATTERN_COST_LIMIT} steps)` };
      const regex = new RegExp(criterion.pattern, criterion.flags ?? '');
      return both((text) => {
        const found = regex.test(text);
        return pass(found, found ? 'pattern matches' : 'pattern does not match');
      }, input);
    }
    case 'json_schema': {
      const unsupported = unsupportedSchemaKeywords(criterion.schema);
      if (unsupported.length > 0)
        return { assessable: false, reason: `schema uses what this judge does not validate: ${unsupported.join(', ')} (supported: ${SUPPORTED_SCHEMA_KEYWORDS.join(', ')})` };
      return both((text) => {
        let value: JsonValue;
        try {
          value = JSON.parse(text) as JsonValue;
        } catch {
          return pass(false, 'response is not valid JSON');
        }
        const violation = schemaViolation(value, criterion.schema);
        return pass(violation === undefined, violation ?? 'valid against the schema');
      }, input);
    }
    case 'length':
      return both((text) => {
        const length = criterion.unit === 'chars' ? codePoints(text).length : words(text).length;
        const ok = (criterion.min === undefined || length >= criterion.min) && (criterion.max === undefined || length <= criterion.max);
        return pass(ok, `${length} ${criterion.unit}`);
      }, input);
    case 'edit_distance': {
      if (input.reference === undefined) return { assessable: false, reason: 'reference is missing' };
      const longest = Math.max(...[input.response_a, input.response_b, input.reference].map((t) => codePoints(t).length));
      if (longest > EDIT_DISTANCE_MAX_CHARS) return { assessable: false, reason: `edit distance compares texts of at most ${EDIT_DISTANCE_MAX_CHARS} characters (longest here: ${longest})` };
      const reference = input.reference;
      return both((text) => graded(editSimilarity(text, reference), criterion.min_similarity ?? DEFAULT_MIN_SIMILARITY, 'similarity'), input);
    }
    case 'ngram_overlap': {
      const n = criterion.n ?? 2;
      if (input.reference === undefined) return { assessable: false, reason: 'reference is missing' };
      if (wordCount(input.reference) < n) return { assessable: false, reason: `reference has fewer than ${n} words` };
      const reference = input.reference;
      return both((text) => graded(ngramF1(text, reference, n), criterion.min_score ?? DEFAULT_MIN_OVERLAP, `${n}-gram F1`), input);
    }
  }
}

export function gradeResponsePair(input: JudgeInput, now: number): JsonObject {
  const criteria: JsonObject[] = [];
  const unassessable: JsonObject[] = [];
  let weightSum = 0;
  let sumA = 0;
  let sumB = 0;
  for (const criterion of input.rubric) {
    const result = assess(criterion, input);
    if (!result.assessable) {
      unassessable.push({ id: criterion.id, type: criterion.type, reason: result.reason });
      continue;
    }
    weightSum += criterion.weight;
    sumA += criterion.weight * result.a.score;
    sumB += criterion.weight * result.b.score;
    criteria.push({ id: criterion.id, type: criterion.type, weight: criterion.weight, a: { ...result.a }, b: { ...result.b } });
  }
  const sufficient = criteria.length > 0;
  const gradeA = sufficient ? round6(sumA / weightSum) : null;
  const gradeB = sufficient ? round6(sumB / weightSum) : null;
  const winner = gradeA === null || gradeB === null ? null : gradeA > gradeB ? 'a' : gradeB > gradeA ? 'b' : 'tie';
  return {
    kind: 'judge-grade',
    ruleset: { ...JUDGE_RULESET },
    outcome: sufficient ? 'GRADED' : 'INSUFFICIENT-DATA',
    winner,
    grade: gradeA === null || gradeB === null ? null : { a: gradeA, b: gradeB },
    criteria,
    unassessable,
    subject: {
      responseASha256: sha256Hex(input.response_a),
      responseBSha256: sha256Hex(input.response_b),
      referenceSha256: input.reference === undefined ? null : sha256Hex(input.reference),
      promptSha256: input.prompt === undefined ? null : sha256Hex(input.prompt),
      rubricSha256: canonicalSha256(input.rubric),
    },
    gradedAt: now,
  };
}
