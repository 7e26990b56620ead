import type { CommandResult } from '../../../kernel/operation.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { CONFLICT_RULES } from '../retrieval/conflicts.ts';
import { RETRIEVAL_RULES } from '../retrieval/rank.ts';
import { retrieve, type Document } from '../retrieval/retrieve.ts';

export const BRIEF_RULESET = {
  id: 'extractive-brief',
  // 2: conflicts list each source's value once, bounded in claims and terms (CONFLICT_RULES).
  version: '2',
  ...RETRIEVAL_RULES,
  conflicts: CONFLICT_RULES,
  segmentation: 'Unicode sentence and word boundaries (UAX #29)',
  minimum_usable_sources: 2,
} as const;
export const DEFAULT_POINTS = 5;

export interface BriefInput {
  question: string;
  sources: Document[];
  max_points?: number | undefined;
}

export function composeBrief(input: BriefInput, now: number): JsonObject {
  const found = retrieve(input.question, input.sources, input.max_points ?? DEFAULT_POINTS);
  const sufficient = found.usableCount >= BRIEF_RULESET.minimum_usable_sources;
  return {
    kind: 'research-brief',
    ruleset: JSON.parse(JSON.stringify(BRIEF_RULESET)) as JsonObject,
    question: input.question,
    outcome: sufficient ? 'BRIEF' : 'INSUFFICIENT-DATA',
    ...(sufficient ? {} : { reason: `${found.usableCount} usable source(s); at least ${BRIEF_RULESET.minimum_usable_sources} are needed` }),
    points: sufficient ? found.points : [],
    conflicts: sufficient ? found.conflicts : [],
    ...(sufficient && found.conflictTermsNotListed > 0 ? { conflict_terms_not_listed: found.conflictTermsNotListed } : {}),
    sources: found.sources,
    evidence_source: 'caller-supplied',
    limitations: ['extractive only: every point is a verbatim sentence of a source, chosen by the published scores; nothing is paraphrased, summarised or judged true', 'conflicts are numbers that differ near the same question term; units and contexts are not interpreted'],
    generatedAt: now,
  };
}

/** The brief as the command's result, as an engine thread runs it (operation.ts). */
export function composeBriefResult(input: BriefInput, now: number): CommandResult {
  return { record: composeBrief(input, now) };
}
