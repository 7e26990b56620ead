import { canonicalBytes, type JsonObject } from '../../../signing/rfc8785.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import type { HistoricKey } from '../../../signing/keyring.ts';
import { ed25519Verifies } from '../../../kernel/signed-record.ts';
import { signingStampOf } from '../../../kernel/signing-stamp.ts';

/**
 * An endpoint's reputation from signed bureau observations (audits and receipt checks) that the
 * caller supplies. Only observations signed by this bureau (its governance key, any generation,
 * the key of the observation's time) are scored: anyone can sign a record saying CONFORMANT, so
 * one that verifies only with a key the caller supplies is listed and counted, never scored.
 * Anything that does not verify, is about another endpoint, or repeats an observation is set
 * aside with the reason.
 */
export const REPUTATION_RULESET = { id: 'bureau-reputation', version: '2' } as const;
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

/** The bureau's governance keys, every generation with its window (the keyring's history). */
export type BureauKey = Pick<HistoricKey, 'publicKeyHex' | 'keyId' | 'generation' | 'validFrom' | 'validUntil'>;

interface Accepted {
  at: number;
  sha256: string;
  kind: string;
  conformant: boolean;
  defects: string[];
}

/** Who signed an observation whose signature verified. */
type Signer = { signedBy: 'bureau'; key: BureauKey } | { signedBy: 'other-key'; publicKey: string };

const inWindow = (key: BureauKey, stamp: number | undefined) => stamp === undefined || (stamp >= key.validFrom && (key.validUntil === null || stamp < key.validUntil));

/**
 * The observation's signer, or why its signature does not stand. A supplied key that is one of
 * ours is treated as ours; without one, ours of any generation, held to the key of its stamp.
 */
function signerOf(o: Observation, bureauKeys: readonly BureauKey[]): { signer: Signer } | { reason: string } {
  let bytes: Buffer;
  try {
    bytes = canonicalBytes(o.evidenceCore);
  } catch (err) {
    return { reason: `signature: the record cannot be canonicalised: ${(err as Error).message}` };
  }
  if (sha256Hex(bytes) !== o.sha256) return { reason: 'signature: sha256 does not match the canonical record' };
  const supplied = o.publicKey?.toLowerCase();
  const ours = supplied === undefined ? bureauKeys : bureauKeys.filter((k) => k.publicKeyHex.toLowerCase() === supplied);
  if (supplied !== undefined && ours.length === 0) {
    return ed25519Verifies(supplied, bytes, o.ed25519Sig) ? { signer: { signedBy: 'other-key', publicKey: supplied } } : { reason: 'signature: the Ed25519 signature does not verify with the supplied public key' };
  }
  const key = ours.find((k) => ed25519Verifies(k.publicKeyHex, bytes, o.ed25519Sig));
  if (!key) return { reason: 'signature: does not verify with any governance key of this bureau (an observation signed by another key needs its publicKey)' };
  const stamp = signingStampOf(o.evidenceCore);
  if (!inWindow(key, stamp)) return { reason: `signature: made with the governance key of generation ${key.generation}, but the record is stamped ${stamp}: not the key of its time` };
  return { signer: { signedBy: 'bureau', key } };
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
const rate = (xs: Accepted[]) => (xs.length === 0 ? null : round4(xs.filter((x) => x.conformant).length / xs.length));

function subjectOf(record: JsonObject): { kind: string; url: unknown; at: unknown } | undefined {
  if (record.kind === 'bureau.audit') return { kind: record.kind, url: (record.endpoint as JsonObject | undefined)?.url, at: record.auditedAt };
  if (record.kind === 'bureau.receipt-check') return { kind: record.kind, url: record.resourceUrl, at: record.checkedAt };
  return undefined;
}

export function assessReputation(input: ReputationInput, context: { now: number; bureauKeys: readonly BureauKey[] }): JsonObject {
  const min = input.min_observations ?? DEFAULT_MIN_OBSERVATIONS;
  const rejected: JsonObject[] = [];
  const verified: JsonObject[] = [];
  const accepted: Accepted[] = [];
  let foreign = 0;
  const seen = new Set<string>();
  input.observations.forEach((o, index) => {
    const checked = signerOf(o, context.bureauKeys);
    if ('reason' in checked) {
      rejected.push({ index, reason: checked.reason });
      return;
    }
    const subject = subjectOf(o.evidenceCore);
    const reason = !subject ? `kind ${JSON.stringify(o.evidenceCore.kind ?? null)} is not a bureau audit or receipt check`
      : subject.url !== input.endpoint.url ? `about ${JSON.stringify(subject.url ?? null)}, not this endpoint`
        : typeof subject.at !== 'number' ? 'carries no observation time'
          : seen.has(o.sha256) ? 'repeats an earlier observation'
            : undefined;
    if (reason !== undefined || !subject) {
      rejected.push({ index, reason: reason ?? 'unreadable' });
      return;
    }
    seen.add(o.sha256);
    const { signer } = checked;
    if (signer.signedBy === 'other-key') {
      verified.push({ index, sha256: o.sha256, signedBy: 'other-key', publicKey: signer.publicKey, scored: false });
      foreign++;
      return;
    }
    verified.push({ index, sha256: o.sha256, signedBy: 'bureau', publicKey: signer.key.publicKeyHex, keyId: signer.key.keyId, key_generation: signer.key.generation, scored: true });
    const defects = Array.isArray(o.evidenceCore.defects) ? o.evidenceCore.defects.filter((d): d is string => typeof d === 'string') : [];
    accepted.push({ at: subject.at as number, sha256: o.sha256, kind: subject.kind, conformant: o.evidenceCore.outcome === 'CONFORMANT', defects });
  });
  accepted.sort((a, b) => a.at - b.at || a.sha256.localeCompare(b.sha256));

  const base = {
    kind: 'bureau.reputation',
    ruleset: { ...REPUTATION_RULESET },
    endpoint: input.endpoint.url,
    // The caller chose which observations to send; the bureau scored only those it signed.
    evidence_source: 'caller-supplied',
    minObservations: min,
    observations: { supplied: input.observations.length, accepted: accepted.length, foreign, rejected, verified },
    observationsSha256: accepted.map((a) => a.sha256),
    assessedAt: context.now,
  };
  if (accepted.length < min) {
    const others = foreign > 0 ? ` (${foreign} signed by other keys counted, not scored)` : '';
    return { ...base, outcome: 'INSUFFICIENT-DATA', reason: `${accepted.length} usable bureau-signed observations${others}, at least ${min} needed: pass rate and trend withheld` };
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

