import type { JsonObject, JsonValue } from '../../signing/rfc8785.ts';

/**
 * The canonical records of spec section 2 that verify routes rebuild field by field. The
 * operation that signs a record and the route that re-checks it both build it here, so the two
 * can never disagree on its shape.
 *
 * Optional members follow one rule: a member the spec marks optional is left out when it holds
 * its verify route's default (the empty string, or an empty object), so that a verifier who
 * omits the parameter rebuilds the very record that was signed.
 */

const isEmptyObject = (v: JsonValue | undefined): boolean =>
  v === undefined || (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0);
const optionalString = (name: string, v: string | undefined): JsonObject => (v ? { [name]: v } : {});
const optionalObject = (name: string, v: JsonValue | undefined): JsonObject => (isEmptyObject(v) ? {} : { [name]: v! });

export function veritrackRecord(r: { kind: string; attestedAt: number; claim: JsonValue }): JsonObject {
  return { kind: r.kind, attestedAt: r.attestedAt, claim: r.claim };
}

export function complianceRecord(r: { kind: string; assessedAt: number; asset: string; assessment: JsonValue }): JsonObject {
  return { kind: r.kind, assessedAt: r.assessedAt, asset: r.asset, assessment: r.assessment };
}

export function utilityRecord(r: { kind: string; utility: string; servedAt: number; utility_result: JsonValue }): JsonObject {
  return { kind: r.kind, utility: r.utility, servedAt: r.servedAt, utility_result: r.utility_result };
}

export function trustedRouteRecord(ranking: JsonValue[]): JsonObject {
  return { routes_count: ranking.length, ranking };
}

export function receiptRecord(r: {
  kind: string;
  receiptType: string;
  tx: string;
  action: string;
  actor?: string;
  subject?: string;
  metadata?: JsonValue;
  mintsAt: number;
}): JsonObject {
  return {
    kind: r.kind,
    receiptType: r.receiptType,
    tx: r.tx,
    action: r.action,
    ...optionalString('actor', r.actor),
    ...optionalString('subject', r.subject),
    ...optionalObject('metadata', r.metadata),
    mintsAt: r.mintsAt,
  };
}

export function identityRecord(r: {
  identifier: string;
  control_method: string;
  control_evidence?: JsonValue;
  claimer?: string;
  verdict: string;
  claimsAt: number;
}): JsonObject {
  return {
    identifier: r.identifier,
    control_method: r.control_method,
    ...optionalObject('control_evidence', r.control_evidence),
    ...optionalString('claimer', r.claimer),
    verdict: r.verdict,
    claimsAt: r.claimsAt,
  };
}

export function readinessRecord(r: {
  target: string;
  policy: JsonValue;
  evidence: JsonValue;
  custodian: string;
  verdict: string;
  attestsAt: number;
}): JsonObject {
  return { target: r.target, policy: r.policy, evidence: r.evidence, custodian: r.custodian, verdict: r.verdict, attestsAt: r.attestsAt };
}
