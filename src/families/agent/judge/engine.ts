import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { canonicalSha256, sha256Hex } from '../../../signing/hash.ts';
import { MAX_JSON_DEPTH } from '../../../kernel/json.ts';
import { parseIJson } from '../../../kernel/rfc7493.ts';
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
  type PatternShape,
} from './metrics.ts';

/**
 * Judge grade, ruleset `judge-rubric` version 2: one response pair against weighted deterministic
 * criteria. Each assessable criterion scores each response in [0, 1]; a response's grade is the
 * weight-averaged score over the assessable criteria (6 decimals); the higher grade wins, equal
 * grades tie. A criterion that cannot be assessed for the pair is listed with its reason and
 * left out of both grades; when none can be assessed the outcome is INSUFFICIENT-DATA and no
 * grade or winner is given.
 *
 * Version 2 (2026-11-27): a regex's cost counts its flags and the response in UTF-16 code units
 * (see flagWeight), so some patterns version 1 ran are now unassessable; a json_schema response
 * is read as I-JSON nested at most MAX_JSON_DEPTH levels, and one that is not fails the criterion
 * with the reason (version 1 failed with a 500, or kept the last of two same-named members).
 */
export const JUDGE_RULESET = { id: 'judge-rubric', version: '2' } as const;
export const JUDGE_OUTCOMES = ['GRADED', 'INSUFFICIENT-DATA'] as const;
/** Edit distance is quadratic: longer texts are not compared (listed as unassessable). */
export const EDIT_DISTANCE_MAX_CHARS = 4000;
export const DEFAULT_MIN_SIMILARITY = 0.8;
export const DEFAULT_MIN_OVERLAP = 0.5;
/**
 * The most work one call may take, in the units of patternCost (a regex backtracking step, x its
 * flag weight) and of edit distance (EDIT_CELL_COST a cell of the table), summed over the whole
 * rubric and both responses. A unit took 2-4 ns at the slowest shapes measured, so the limit is
 * under a second of CPU. Identical work counts once, as it runs once. Larger is refused before
 * the quote (rubric_too_costly).
 */
export const JUDGE_COST_LIMIT = 200_000_000;
/** A cell of the edit-distance table measured about three regex steps (12 ns against 4). */
export const EDIT_CELL_COST = 3;

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
type RegexCriterion = Extract<JudgeCriterion, { type: 'regex' }>;

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

/**
 * Results of one call's measures, by what they depend on: identical criteria (or ones differing
 * only in id, weight or threshold) are measured once, and a response equal to the other once.
 * Thirty-two identical edit-distance criteria were 32 computations (23.5 s).
 */
class Memo<T> {
  private readonly results = new Map<string, T>();
  of(parameters: string, text: string, compute: () => T): T {
    const key = `${parameters}\u0000${text}`;
    if (this.results.has(key)) return this.results.get(key)!;
    const result = compute();
    this.results.set(key, result);
    return result;
  }
}

interface Measures {
  found: Memo<boolean>;
  similarity: Memo<number>;
  overlap: Memo<number>;
  json: Memo<ResponseJson>;
  schema: Memo<string | undefined>;
}
const newMeasures = (): Measures => ({ found: new Memo(), similarity: new Memo(), overlap: new Memo(), json: new Memo(), schema: new Memo() });

type ResponseJson = { ok: true; value: JsonValue } | { ok: false; detail: string };

/**
 * A response read for json_schema: I-JSON (RFC 7493) at most MAX_JSON_DEPTH deep, what the schema
 * check and its canonical enum comparison can hold. Anything else fails the criterion with the
 * reason: the response is what is judged, not an error of the caller's.
 */
export function readResponseJson(text: string): ResponseJson {
  const parsed = parseIJson(text, MAX_JSON_DEPTH);
  if (parsed.ok) return { ok: true, value: parsed.value as JsonValue };
  if (parsed.malformed) return { ok: false, detail: 'response is not valid JSON' };
  if (parsed.path === '(root)' && parsed.reason.startsWith('must not nest')) return { ok: false, detail: `response JSON nests deeper than ${MAX_JSON_DEPTH} levels` };
  return { ok: false, detail: `response is not I-JSON (RFC 7493): ${parsed.path}: ${parsed.reason}` };
}

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
const pass = (ok: boolean, detail: string): SideResult => ({ score: ok ? 1 : 0, passed: ok, detail });
const graded = (score: number, threshold: number, label: string): SideResult => ({
  score: round6(score),
  passed: score >= threshold,
  detail: `${label} ${round6(score)} (pass at >= ${threshold})`,
});
const both = (f: (text: string) => SideResult, input: JudgeInput): Assessment => ({ assessable: true, a: f(input.response_a), b: f(input.response_b) });
const responses = (input: JudgeInput): string[] => (input.response_a === input.response_b ? [input.response_a] : [input.response_a, input.response_b]);
const regexKey = (c: RegexCriterion): string => `${c.flags ?? ''}/${c.pattern}`;

/** Why a regex criterion is not run, or undefined when it is: its shape, or its cost on the longer response. */
function regexRefusal(criterion: RegexCriterion, shape: PatternShape, input: JudgeInput): string | undefined {
  if (shape.unsafe) return shape.unsafe;
  const longest = Math.max(input.response_a.length, input.response_b.length);
  if (patternCost(shape, longest, criterion.flags) <= PATTERN_COST_LIMIT) return undefined;
  return `pattern has ${shape.unbounded} unbounded quantifier(s): too costly to run on a ${longest}-code-unit response with flags "${criterion.flags ?? ''}" (limit ${PATTERN_COST_LIMIT} weighted steps)`;
}

const editDistanceRefusal = (input: JudgeInput): string | undefined => {
  if (input.reference === undefined) return 'reference is missing';
  const longest = Math.max(...[input.response_a, input.response_b, input.reference].map((t) => codePoints(t).length));
  return longest > EDIT_DISTANCE_MAX_CHARS ? `edit distance compares texts of at most ${EDIT_DISTANCE_MAX_CHARS} characters (longest here: ${longest})` : undefined;
};

export interface RubricCost {
  total: number;
  /** Cost of each criterion that adds work, by its index in the rubric: the first of identical ones. */
  byCriterion: Array<{ index: number; cost: number }>;
}

/**
 * The superlinear work a call will do, from its input alone: the weighted steps of every regex
 * that will run, on each distinct response, and the edit-distance cells of each distinct
 * response against the reference. What the memo shares is counted once. The other criteria are
 * linear in the texts and not counted.
 */
export function rubricCost(input: JudgeInput): RubricCost {
  const byCriterion: RubricCost['byCriterion'] = [];
  const counted = new Set<string>();
  input.rubric.forEach((criterion, index) => {
    if (criterion.type === 'regex') {
      const shape = patternShape(criterion.pattern);
      if (counted.has(regexKey(criterion)) || regexRefusal(criterion, shape, input) !== undefined) return;
      counted.add(regexKey(criterion));
      byCriterion.push({ index, cost: responses(input).reduce((sum, text) => sum + patternCost(shape, text.length, criterion.flags), 0) });
    } else if (criterion.type === 'edit_distance') {
      if (counted.has('edit_distance') || editDistanceRefusal(input) !== undefined) return;
      counted.add('edit_distance');
      const reference = codePoints(input.reference!).length;
      byCriterion.push({ index, cost: responses(input).reduce((sum, text) => sum + EDIT_CELL_COST * codePoints(text).length * reference, 0) });
    }
  });
  return { total: byCriterion.reduce((sum, c) => sum + c.cost, 0), byCriterion };
}

function assess(criterion: JudgeCriterion, input: JudgeInput, memo: Measures): Assessment {
  switch (criterion.type) {
    case 'contains':
    case 'not_contains': {
      const fold = (t: string) => (criterion.case_sensitive ? t : t.toLowerCase());
      const wanted = criterion.type === 'contains';
      const needle = fold(criterion.text);
      return both((text) => {
        const found = memo.found.of(`${criterion.case_sensitive ? 'case' : 'fold'}\u0000${needle}`, text, () => fold(text).includes(needle));
        return pass(found === wanted, found ? 'text found' : 'text not found');
      }, input);
    }
    case 'regex': {
      const refusal = regexRefusal(criterion, patternShape(criterion.pattern), input);
      if (refusal !== undefined) return { assessable: false, reason: refusal };
      const regex = new RegExp(criterion.pattern, criterion.flags ?? '');
      return both((text) => {
        const found = memo.found.of(`regex\u0000${regexKey(criterion)}`, text, () => regex.test(text));
        return pass(found, found ? 'pattern matches' : 'pattern does not match');
      }, input);
    }
    case 'json_schema': {
      const unsupported = unsupportedSchemaKeywords(criterion.schema);
      if (unsupported.length > 0)
        return { assessable: false, reason: `schema uses what this judge does not validate: ${unsupported.join(', ')} (supported: ${SUPPORTED_SCHEMA_KEYWORDS.join(', ')})` };
      const schema = canonicalSha256(criterion.schema);
      return both((text) => {
        const read = memo.json.of('', text, () => readResponseJson(text));
        if (!read.ok) return pass(false, read.detail);
        const violation = memo.schema.of(schema, text, () => schemaViolation(read.value, criterion.schema));
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
      const refusal = editDistanceRefusal(input);
      if (refusal !== undefined) return { assessable: false, reason: refusal };
      const reference = input.reference!;
      return both((text) => graded(memo.similarity.of('', text, () => editSimilarity(text, reference)), criterion.min_similarity ?? DEFAULT_MIN_SIMILARITY, 'similarity'), input);
    }
    case 'ngram_overlap': {
      const n = criterion.n ?? 2;
      if (input.reference === undefined) return { assessable: false, reason: 'reference is missing' };
      if (wordCount(input.reference) < n) return { assessable: false, reason: `reference has fewer than ${n} words` };
      const reference = input.reference;
      return both((text) => graded(memo.overlap.of(String(n), text, () => ngramF1(text, reference, n)), criterion.min_score ?? DEFAULT_MIN_OVERLAP, `${n}-gram F1`), input);
    }
  }
}

export function gradeResponsePair(input: JudgeInput, now: number): JsonObject {
  const criteria: JsonObject[] = [];
  const unassessable: JsonObject[] = [];
  let weightSum = 0;
  let sumA = 0;
  let sumB = 0;
  const memo = newMeasures();
  for (const criterion of input.rubric) {
    const result = assess(criterion, input, memo);
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
