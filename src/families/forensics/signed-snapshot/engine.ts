import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import type { SignedSnapshotInput } from './input.ts';
import { isWrittenOutUrl } from '../../../kernel/written-url.ts';
import { isJsonObject } from '../../../kernel/json.ts';

/**
 * Signed data snapshot: series rows and their source citations sealed together with how old the
 * data was when sealed. Which rows and citations count is a published, versioned rule, and so is
 * the freshness tier table, because a verifier must know what "FRESH" meant when it was signed.
 */
export const SNAPSHOT_USABILITY_RULES = 'snapshot-usability/v2';
/** The record's ruleset names both tables it was judged by (published on GET /v1/data/freshness-tiers). */
export const SNAPSHOT_RULESET = { id: 'signed-snapshot', version: '1', usability: SNAPSHOT_USABILITY_RULES, freshness: 'freshness-tiers/v1' } as const;

export const FRESHNESS_TIERS = {
  version: SNAPSHOT_RULESET.freshness,
  /** A fetchedAt at most this far ahead of the stamp is caller clock skew, not future data. */
  futureToleranceSeconds: 60,
  /** Tiers in order; the first whose maxAgeSeconds is >= the age applies (null: no bound). */
  tiers: [
    { tier: 'LIVE', maxAgeSeconds: 300 },
    { tier: 'FRESH', maxAgeSeconds: 3_600 },
    { tier: 'RECENT', maxAgeSeconds: 86_400 },
    { tier: 'STALE', maxAgeSeconds: 604_800 },
    { tier: 'ARCHIVAL', maxAgeSeconds: null },
  ],
  futureTier: 'FUTURE-DATED',
  absentTier: 'NOT-PROVIDED',
} as const;

export type FreshnessTier = (typeof FRESHNESS_TIERS.tiers)[number]['tier'] | typeof FRESHNESS_TIERS.futureTier | typeof FRESHNESS_TIERS.absentTier;

export interface Freshness {
  tier: FreshnessTier;
  fetchedAt: number | null;
  age_seconds: number | null;
}

/** Age = stamp - fetchedAt; negative within the tolerance counts as LIVE (the caller's clock runs ahead). */
export function freshnessOf(fetchedAt: number | undefined, stampedAt: number): Freshness {
  if (fetchedAt === undefined) return { tier: FRESHNESS_TIERS.absentTier, fetchedAt: null, age_seconds: null };
  const age = stampedAt - fetchedAt;
  if (age < -FRESHNESS_TIERS.futureToleranceSeconds) return { tier: FRESHNESS_TIERS.futureTier, fetchedAt, age_seconds: age };
  const tier = FRESHNESS_TIERS.tiers.find((t) => t.maxAgeSeconds === null || Math.max(age, 0) <= t.maxAgeSeconds)!.tier;
  return { tier, fetchedAt, age_seconds: age };
}

type Rejection = { index: number; reason: string };


/** A usable row is a JSON object with at least one member whose value is a number. */
export function rowRejection(row: JsonValue): string | undefined {
  if (!isJsonObject(row)) return 'not-an-object';
  return Object.values(row).some((v) => typeof v === 'number') ? undefined : 'no-numeric-value';
}

const DOI = /^10\.\d{4,9}\/\S+$/;
/**
 * Written out as a reader follows it (kernel/written-url.ts): the URL parser alone also took
 * `https:/x` and `https://\u200bexample.com`, and the citation is sealed as written (v2).
 */
const isHttpUrl = (text: string): boolean => isWrittenOutUrl(text, ['http:', 'https:']);

/**
 * A usable citation names where the data came from in a form a reader can follow: an absolute
 * http(s) URL (as a string, or as the `url` member of an object), or a DOI (`doi` member).
 */
export function citationRejection(citation: JsonValue): string | undefined {
  if (typeof citation === 'string') return isHttpUrl(citation) ? undefined : 'not-an-http-url';
  if (!isJsonObject(citation)) return 'not-a-string-or-object';
  const { url, doi } = citation;
  if (typeof url === 'string' && isHttpUrl(url)) return undefined;
  if (typeof doi === 'string' && DOI.test(doi)) return undefined;
  if (url === undefined && doi === undefined) return 'no-url-or-doi';
  return 'url-not-http-and-doi-malformed';
}

function partition(items: readonly JsonValue[], rejection: (v: JsonValue) => string | undefined): { usable: JsonValue[]; rejected: Rejection[] } {
  const usable: JsonValue[] = [];
  const rejected: Rejection[] = [];
  items.forEach((item, index) => {
    const reason = rejection(item);
    if (reason) rejected.push({ index, reason });
    else usable.push(item);
  });
  return { usable, rejected };
}

export type SnapshotOutcome = 'SEALED' | 'INSUFFICIENT-DATA';

/** The evidenceCore; `stampedAt` is the only member that depends on the clock. */
export function buildSignedSnapshot(input: SignedSnapshotInput, stampedAt: number): JsonObject {
  const rows = partition(input.rows as JsonValue[], rowRejection);
  const citations = partition(input.citations as JsonValue[], citationRejection);
  const freshness = freshnessOf(input.fetchedAt, stampedAt);
  const missing = [
    ...(rows.usable.length === 0 ? ['rows'] : []),
    ...(citations.usable.length === 0 ? ['citations'] : []),
    ...(input.fetchedAt === undefined ? ['fetchedAt'] : []),
  ];
  const outcome: SnapshotOutcome = rows.usable.length > 0 && citations.usable.length > 0 ? 'SEALED' : 'INSUFFICIENT-DATA';
  return {
    kind: 'data.signed-snapshot',
    ruleset: { ...SNAPSHOT_RULESET },
    series: input.series,
    outcome,
    missing,
    freshness: { ...freshness },
    rows: rows.usable,
    rows_count: rows.usable.length,
    rows_rejected: rows.rejected,
    citations: citations.usable,
    citations_count: citations.usable.length,
    citations_rejected: citations.rejected,
    // Rows, citations and fetchedAt are the caller's; the service checked their form and sealed them.
    evidence_source: 'caller-supplied',
    stampedAt,
  };
}

/** The rules a verifier needs to read a snapshot, published on a free route. */
export function publishedSnapshotRules(): JsonObject {
  return {
    freshness: {
      version: FRESHNESS_TIERS.version,
      futureToleranceSeconds: FRESHNESS_TIERS.futureToleranceSeconds,
      tiers: FRESHNESS_TIERS.tiers.map((t) => ({ tier: t.tier, maxAgeSeconds: t.maxAgeSeconds })),
      futureTier: FRESHNESS_TIERS.futureTier,
      absentTier: FRESHNESS_TIERS.absentTier,
      age: 'age_seconds = stampedAt - fetchedAt; the first tier whose maxAgeSeconds >= max(age, 0) applies; age < -futureToleranceSeconds gives futureTier; no fetchedAt gives absentTier',
    },
    usability: {
      version: SNAPSHOT_USABILITY_RULES,
      row: 'a JSON object with at least one member whose value is a number',
      citation: 'an absolute http(s) URL as a string, or an object whose url member is one, or whose doi member matches 10.<4-9 digits>/<suffix>',
      insufficient: 'no usable row or no usable citation gives outcome INSUFFICIENT-DATA',
    },
  };
}
