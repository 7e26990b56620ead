import type { JsonValue } from '../../../signing/rfc8785.ts';
import { canonicalText } from '../../../signing/rfc8785.ts';

/**
 * The deterministic measures behind the judge's criteria: text similarity, a safe-regex check,
 * and a documented subset of JSON Schema. Pure functions of their arguments.
 */

export const codePoints = (text: string): string[] => Array.from(text);
export const words = (text: string): string[] => text.split(/\s+/u).filter((w) => w.length > 0);
const normalisedWords = (text: string): string[] => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

/** Levenshtein distance over code points, two rows of integers. */
export function editDistance(a: string, b: string): number {
  const x = codePointArray(a);
  const y = codePointArray(b);
  if (x.length === 0) return y.length;
  if (y.length === 0) return x.length;
  let previous = new Uint32Array(y.length + 1);
  let current = new Uint32Array(y.length + 1);
  for (let j = 0; j <= y.length; j++) previous[j] = j;
  for (let i = 1; i <= x.length; i++) {
    const xi = x[i - 1];
    let left = i;
    current[0] = left;
    for (let j = 1; j <= y.length; j++) {
      let best = previous[j - 1]! + (xi === y[j - 1] ? 0 : 1);
      const up = previous[j]! + 1;
      if (up < best) best = up;
      if (left + 1 < best) best = left + 1;
      current[j] = left = best;
    }
    [previous, current] = [current, previous];
  }
  return previous[y.length]!;
}

function codePointArray(text: string): Uint32Array {
  const out = new Uint32Array(text.length);
  let n = 0;
  for (const ch of text) out[n++] = ch.codePointAt(0)!;
  return out.subarray(0, n);
}

/** 1 - distance / longer length; two empty texts are identical. */
export function editSimilarity(a: string, b: string): number {
  const longer = Math.max(codePoints(a).length, codePoints(b).length);
  return longer === 0 ? 1 : 1 - editDistance(a, b) / longer;
}

function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const gram = tokens.slice(i, i + n).join('\u0000');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

export const wordCount = (text: string): number => normalisedWords(text).length;

/** F1 of clipped word n-gram overlap (ROUGE-N style), words lowercased, punctuation dropped. */
export function ngramF1(candidate: string, reference: string, n: number): number {
  const c = ngramCounts(normalisedWords(candidate), n);
  const r = ngramCounts(normalisedWords(reference), n);
  const total = (m: Map<string, number>) => [...m.values()].reduce((s, v) => s + v, 0);
  const cTotal = total(c);
  const rTotal = total(r);
  if (cTotal === 0 || rTotal === 0) return 0;
  let overlap = 0;
  for (const [gram, count] of c) overlap += Math.min(count, r.get(gram) ?? 0);
  if (overlap === 0) return 0;
  const precision = overlap / cTotal;
  const recall = overlap / rTotal;
  return (2 * precision * recall) / (precision + recall);
}

export interface PatternShape {
  /** Set when the pattern is never run: backreferences, or repeated groups that nest repetition. */
  unsafe?: string;
  /** Unbounded quantifiers (*, +, {n,}): each may try every length of the text. */
  unbounded: number;
  /** Product of the choices of the bounded quantifiers (? is 2, {n,m} is m-n+1). */
  boundedChoices: number;
}

/**
 * The backtracking shape of a pattern, read without running it. Backreferences, and repeated
 * groups containing a quantifier or an alternation, backtrack exponentially and are refused
 * (conservatively: `(a|b)+` is refused too). The rest is bounded by patternCost.
 */
export function patternShape(pattern: string): PatternShape {
  if (/\\[1-9]|\\k</.test(pattern)) return { unsafe: 'pattern uses a backreference, which this judge does not run', unbounded: 0, boundedChoices: 1 };
  const groups: Array<{ risky: boolean }> = [];
  let unbounded = 0;
  let boundedChoices = 1;
  let inClass = false;
  let afterQuantifier = false;
  let justClosed: { risky: boolean } | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    const closed = justClosed;
    justClosed = undefined;
    if (ch === '\\') {
      i++;
      afterQuantifier = false;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    const braces = ch === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i)) : null;
    const isQuantifier = ch === '*' || ch === '+' || (ch === '?' && pattern[i - 1] !== '(' && !afterQuantifier) || braces !== null;
    if (isQuantifier) {
      const min = braces ? Number(braces[1]) : 0;
      const max = braces ? (braces[2] === undefined ? min : braces[3] === '' ? Infinity : Number(braces[3])) : ch === '?' ? 1 : Infinity;
      if (max === Infinity) unbounded++;
      else boundedChoices *= max - min + 1;
      const repeats = max > 1;
      if (closed?.risky && repeats)
        return { unsafe: 'pattern repeats a group that itself contains a quantifier or an alternation (catastrophic backtracking risk)', unbounded, boundedChoices };
      if (groups.length > 0) groups.at(-1)!.risky = true;
      if (braces) i += braces[0].length - 1;
      afterQuantifier = true;
      continue;
    }
    afterQuantifier = false;
    if (ch === '[') inClass = true;
    else if (ch === '(') groups.push({ risky: false });
    else if (ch === '|' && groups.length > 0) groups.at(-1)!.risky = true;
    else if (ch === ')') {
      justClosed = groups.pop() ?? { risky: false };
      if (justClosed.risky && groups.length > 0) groups.at(-1)!.risky = true;
    }
  }
  return { unbounded, boundedChoices };
}

/**
 * Most backtracking steps a pattern may cost on one response, weighted by its flags (below): a
 * criterion costlier than this on the longer response is unassessable.
 */
export const PATTERN_COST_LIMIT = 50_000_000;

/**
 * How much slower a step is with these flags than without, rounded up from the slowest classes
 * measured: about 10 ns a step with no flag, 28 ns with `i` alone (a long class folded by case),
 * 70 ns with `u` (Unicode property classes over letters with several case forms, such as İ, ſ
 * or ǅ). `[^y]*y` with `iu` on 7,071 × ǅ was priced at 5 × 10^7 steps unweighted and held the
 * loop 0.64 s; weighted it is 4 × 10^8, over the limit.
 */
export function flagWeight(flags: string | undefined): number {
  if (flags?.includes('u')) return 8;
  if (flags?.includes('i')) return 3;
  return 1;
}

/**
 * Upper estimate of backtracking steps: every start position times every quantifier choice. The
 * length is in UTF-16 code units, what a pattern without `u` steps over (an emoji is two).
 */
export function patternCost(shape: PatternShape, textLength: number, flags?: string): number {
  const length = Math.max(1, textLength);
  return flagWeight(flags) * length ** (shape.unbounded + 1) * shape.boundedChoices;
}

/** The JSON Schema keywords the judge validates; annotations are accepted and ignored. */
export const SUPPORTED_SCHEMA_KEYWORDS = ['type', 'required', 'properties', 'enum', 'items', 'minLength', 'maxLength', 'minItems', 'maxItems'] as const;
const ANNOTATIONS = new Set(['$schema', '$id', '$comment', 'title', 'description', 'examples', 'default']);
const SUPPORTED = new Set<string>(SUPPORTED_SCHEMA_KEYWORDS);

type Schema = { [key: string]: JsonValue };
const isObject = (v: JsonValue | undefined): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Keywords outside the subset, anywhere in the schema (sorted, deduplicated). */
export function unsupportedSchemaKeywords(schema: JsonValue): string[] {
  const found = new Set<string>();
  const walk = (s: JsonValue | undefined, path: string) => {
    if (!isObject(s)) {
      found.add(`${path || '(root)'} is not a schema object`);
      return;
    }
    for (const keyword of Object.keys(s)) if (!SUPPORTED.has(keyword) && !ANNOTATIONS.has(keyword)) found.add(keyword);
    if (isObject(s.properties)) for (const [name, sub] of Object.entries(s.properties)) walk(sub, `${path}.properties.${name}`);
    if (s.items !== undefined) walk(s.items, `${path}.items`);
  };
  walk(schema, '');
  return [...found].sort();
}

function typeOf(v: JsonValue): string[] {
  if (v === null) return ['null'];
  if (Array.isArray(v)) return ['array'];
  if (typeof v === 'number') return Number.isInteger(v) ? ['number', 'integer'] : ['number'];
  return [typeof v];
}

/**
 * The canonical texts of an enum, made once per enum: comparing every entry with every item of an
 * array was enum size x items (2,000 entries x 9,999 items: 1.65 s).
 */
const enumTextCache = new WeakMap<JsonValue[], Set<string>>();
function enumTexts(values: JsonValue[]): Set<string> {
  let texts = enumTextCache.get(values);
  if (texts === undefined) {
    texts = new Set(values.map((v) => canonicalText(v)));
    enumTextCache.set(values, texts);
  }
  return texts;
}

/** A value's canonical text, made once per array or object however many enums it is checked against. */
const canonicalCache = new WeakMap<object, string>();
function canonicalOf(value: JsonValue): string {
  if (value === null || typeof value !== 'object') return canonicalText(value);
  let text = canonicalCache.get(value);
  if (text === undefined) {
    text = canonicalText(value);
    canonicalCache.set(value, text);
  }
  return text;
}

/** The first violation of the subset, as "path: reason", or undefined when the value conforms. */
export function schemaViolation(value: JsonValue, schema: Schema, path = '$'): string | undefined {
  if (schema.type !== undefined) {
    const allowed = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!typeOf(value).some((t) => allowed.includes(t))) return `${path}: expected type ${allowed.join(' or ')}`;
  }
  if (Array.isArray(schema.enum) && !enumTexts(schema.enum).has(canonicalOf(value))) return `${path}: not one of the enum values`;
  if (typeof value === 'string') {
    const length = codePoints(value).length;
    if (typeof schema.minLength === 'number' && length < schema.minLength) return `${path}: shorter than minLength ${schema.minLength}`;
    if (typeof schema.maxLength === 'number' && length > schema.maxLength) return `${path}: longer than maxLength ${schema.maxLength}`;
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) return `${path}: fewer than minItems ${schema.minItems}`;
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return `${path}: more than maxItems ${schema.maxItems}`;
    if (isObject(schema.items)) {
      for (const [i, item] of value.entries()) {
        const problem = schemaViolation(item, schema.items, `${path}[${i}]`);
        if (problem) return problem;
      }
    }
  }
  if (isObject(value)) {
    if (Array.isArray(schema.required)) for (const name of schema.required) if (typeof name === 'string' && !Object.hasOwn(value, name)) return `${path}: missing required member ${name}`;
    if (isObject(schema.properties)) {
      for (const [name, sub] of Object.entries(schema.properties)) {
        if (Object.hasOwn(value, name) && isObject(sub)) {
          const problem = schemaViolation(value[name]!, sub, `${path}.${name}`);
          if (problem) return problem;
        }
      }
    }
  }
  return undefined;
}
