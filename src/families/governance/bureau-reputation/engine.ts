import type { JsonObject } from '../../../signing/rfc8785.ts';
import { checkSignedRecord } from '../../../kernel/signed-record.ts';

/**
 * An endpoint's reputation from signed bureau observations (audits and receipt checks). Ours
 * are verified with the governance key, others' with the key supplied beside them; anything
 * that does not verify, is about another endpoint, or repeats an observation is set aside with
 * the reason, never counted.
 */
export const REPUTATION_RULESET = { id: 'bureau-reputation', version: '1' } as const;
export const DEFAULT_MIN_OBSERVATIONS = 3;
/** A change of pass rate between the earlier and the later half smaller than this is "stable". */
export const TREND_THRESHOLD = 0.1;

export interface Observation {
  evidenceCore: JsonObject;
  sha256: string;
  ed25519Sig: string;
  /** Issuer key (hex) for observations not signed by this bureau. */
  publicKey?: string | undefined;
}

export interface ReputationInput {
  endpoint: { url: string };
  observations: Observation[];
  min_observations?: number | undefined;
}

interface Accepted {
  at: number;
  sha256: string;
  kind: string;
  conformant: boolean;
  defects: string[];
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
const rate = (xs: Accepted[]) => (xs.length === 0 ? null : round4(xs.filter((x) => x.conformant).length / xs.length));

function subjectOf(record: JsonObject): { kind: string; url: unknown; at: unknown } | undefined {
  if (record.kind === 'bureau.audit') return { kind: record.kind, url: (record.endpoint as JsonObject | undefined)?.url, at: record.auditedAt };
  if (record.kind === 'bureau.receipt-check') return { kind: record.kind, url: record.resourceUrl, at: record.checkedAt };
  return undefined;
}

export function assessReputation(input: ReputationInput, context: { now: number; bureauPublicKey: string }): JsonObject {
  const min = input.min_observations ?? DEFAULT_MIN_OBSERVATIONS;
  const rejected: JsonObject[] = [];
  const accepted: Accepted[] = [];
  const seen = new Set<string>();
  input.observations.forEach((o, index) => {
    const key = o.publicKey ?? context.bureauPublicKey;
    const signature = checkSignedRecord(o.evidenceCore, o.sha256, o.ed25519Sig, key);
    const subject = subjectOf(o.evidenceCore);
    const reason = !signature.valid ? `signature: ${signature.reason ?? 'does not verify'}`
      : !subject ? `kind ${JSON.stringify(o.evidenceCore.kind ?? null)} is not a bureau audit or receipt check`
        : subject.url !== input.endpoint.url ? `about ${JSON.stringify(subject.url ?? null)}, not this endpoint`
          : typeof subject.at !== 'number' ? 'carries no observation time'
            : seen.has(o.sha256) ? 'repeats an earlier observation'
              : undefined;
    if (reason || !subject) {
      rejected.push({ index, reason: reason ?? 'unreadable' });
      return;
    }
    seen.add(o.sha256);
    const defects = Array.isArray(o.evidenceCore.defects) ? o.evidenceCore.defects.filter((d): d is string => typeof d === 'string') : [];
    accepted.push({ at: subject.at as number, sha256: o.sha256, kind: subject.kind, conformant: o.evidenceCore.outcome === 'CONFORMANT', defects });
  });
  accepted.sort((a, b) => a.at - b.at || a.sha256.localeCompare(b.sha256));

  const base = {
    kind: 'bureau.reputation',
    ruleset: { ...REPUTATION_RULESET },
    endpoint: input.endpoint.url,
    minObservations: min,
    observations: { supplied: input.observations.length, accepted: accepted.length, rejected },
    observationsSha256: accepted.map((a) => a.sha256),
    assessedAt: context.now,
  };
  if (accepted.length < min) {
    return { ...base, outcome: 'INSUFFICIENT-DATA', reason: `${accepted.length} usable observations, at least ${min} needed: pass rate and trend withheld` };
  }
  const half = Math.floor(accepted.length / 2);
  const earlier = rate(accepted.slice(0, half))!;
  const later = rate(accepted.slice(half))!;
  const delta = round4(later - earlier);
  const passRate = rate(accepted)!;
  // Open defects: what the newest observation of each kind still fails.
  const open = new Set<string>();
  for (const kind of ['bureau.audit', 'bureau.receipt-check']) {
    const newest = accepted.filter((a) => a.kind === kind).at(-1);
    for (const d of newest?.defects ?? []) open.add(d);
  }
  return {
    ...base,
    firstObservedAt: accepted[0]!.at,
    lastObservedAt: accepted.at(-1)!.at,
    passRate,
    trend: { earlierPassRate: earlier, laterPassRate: later, delta, direction: delta >= TREND_THRESHOLD ? 'improving' : delta <= -TREND_THRESHOLD ? 'declining' : 'stable' },
    openDefects: [...open].sort(),
    outcome: passRate >= 0.9 && open.size === 0 ? 'GOOD' : passRate >= 0.6 ? 'FAIR' : 'POOR',
  };
}

