import type { JsonObject } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import type { EvidenceIngestInput } from './input.ts';

/**
 * Evidence ingest: one evidence entry, sealed. The entry id is the SHA-256 of the entry's own
 * content, so the same content always names the same entry and a re-ingest finds it again.
 */
export const EVIDENCE_ENTRY_RULESET = { id: 'evidence-entry', version: '1' } as const;
/** The rules' name as the entryId and action_hash derivations hash it; unchanged so that ids stay stable. */
export const EVIDENCE_ENTRY_RULES = 'evidence-entry/v1';

export type ActionHashSource = 'derived' | 'supplied-matches-derivation' | 'supplied';

/** The entry as supplied, with absent optional members left out (never filled in). */
export function evidenceEntryContent(input: EvidenceIngestInput): JsonObject {
  return {
    action: input.action,
    ...(input.actor !== undefined ? { actor: input.actor } : {}),
    ...(input.subject !== undefined ? { subject: input.subject } : {}),
    ...(input.occurredAt !== undefined ? { occurredAt: input.occurredAt } : {}),
    ...(input.payload !== undefined ? { payload: input.payload as JsonObject } : {}),
  };
}

/** The action hash a caller gets when it supplies none: SHA-256 of the canonical entry content. */
export function deriveActionHash(entry: JsonObject): string {
  return canonicalSha256({ rules: EVIDENCE_ENTRY_RULES, purpose: 'action_hash', entry });
}

/** Content-derived, so stable per entry: the same entry and action hash give the same id. */
export function evidenceEntryId(entry: JsonObject, actionHash: string): string {
  return canonicalSha256({ rules: EVIDENCE_ENTRY_RULES, purpose: 'entryId', entry, action_hash: actionHash });
}

export interface SealedEvidence {
  entryId: string;
  record: JsonObject;
}

/** The record signed under `sealed`; `sealedAt` is the only member that depends on the clock. */
export function sealEvidenceEntry(input: EvidenceIngestInput, sealedAt: number): SealedEvidence {
  const entry = evidenceEntryContent(input);
  const derived = deriveActionHash(entry);
  const actionHash = input.action_hash ?? derived;
  const source: ActionHashSource = input.action_hash === undefined ? 'derived' : input.action_hash === derived ? 'supplied-matches-derivation' : 'supplied';
  const entryId = evidenceEntryId(entry, actionHash);
  return {
    entryId,
    record: {
      kind: 'evidence.entry',
      ruleset: { ...EVIDENCE_ENTRY_RULESET },
      entryId,
      entry,
      action_hash: actionHash,
      action_hash_source: source,
      // The entry is what the caller says happened; the service seals it, it did not observe it.
      evidence_source: 'caller-supplied',
      sealedAt,
    },
  };
}

/** The entry id a given input will be sealed under, before anything is stored. */
export function entryIdOf(input: EvidenceIngestInput): string {
  const entry = evidenceEntryContent(input);
  return evidenceEntryId(entry, input.action_hash ?? deriveActionHash(entry));
}
