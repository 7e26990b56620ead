import { z } from 'zod';
import { readinessRecord } from '../../../kernel/route-kit/records.ts';
import { READINESS_RULESET, READINESS_STANDARD, READINESS_STANDARD_VERSION, attestReadiness } from './engine.ts';
import { rulesetMember, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { freeRoute, pricedOperation, type Route, fromEngine } from '../../../kernel/operation.ts';
import { param, parseIntegerParam, parseJsonParam, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';
import { at, shortText, urlVerifiableObject } from '../shared/schemas.ts';

export const readinessInput = z
  .object({
    target: shortText(512).min(1).describe('The system or agent the attestation is about'),
    custodian: shortText(512).optional().describe('Kill-switch custodian: did:key, raw Ed25519 key or EVM address; signs the rules'),
    policy: urlVerifiableObject.describe('Policy snapshot: agent_did, emergency_contact_did, rules [{rule: {type: notify|throttle, ...}, signature}], escalation_seconds'),
  })
  .strict();

const readinessFinding = z.object({
  element: z.enum(['agent_did', 'emergency_contact_did', 'kill_switch_custodian', 'signed_rule', 'escalation_time']),
  status: z.enum(['evidenced', 'missing', 'unevidenced']),
  detail: z.string(),
  ruleset: rulesetMember(READINESS_RULESET),
  evidence_source: z
    .literal('caller-supplied')
    .optional()
    .describe("The policy snapshot and custodian were supplied by the caller; the service checks the rules' signatures but observes no deployed policy (absent in findings signed before 2026-11-28)"),
});

export const readinessRecordSchema = z.object({
  target: z.string(),
  policy: z.record(z.string(), z.json()),
  evidence: z.array(readinessFinding).describe('Every element of the readiness standard with its status'),
  custodian: z.string(),
  verdict: z.enum(['READY', 'READINESS-GAP']),
  attestsAt: at('attestation time'),
});

// ---- agent-reputation.composite

const readinessAttest = pricedOperation({
    id: 'readiness.attest',
    method: 'POST',
    path: '/v1/readiness/attest',
    family: 'trust',
    priceUsd: '0.25',
    summary: 'Containment-readiness attestation from a supplied policy snapshot; never defaulted to ready.',
    description: `Record {target, policy, evidence, custodian, verdict, attestsAt}, judged against the published standard ${READINESS_STANDARD_VERSION} (GET /v1/readiness/standard): READY only when every element is present and evidenced, otherwise READINESS-GAP with every element and its status in evidence. Each finding is marked evidence_source caller-supplied: it judges the snapshot sent, not a deployed policy.`,
    inputFrom: 'json',
    input: readinessInput,
    example: {
      target: 'agent fleet eu-1',
      custodian: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      policy: { agent_did: 'did:web:agents.example.org:eu-1', emergency_contact_did: 'did:web:example.org:oncall', escalation_seconds: 900, rules: [] },
    },
    output: signedResponse(readinessRecordSchema, null),
    keyFamily: 'readiness',
    signedMember: null,
    verifyPath: '/v1/readiness/attest/verify',
    command: fromEngine(attestReadiness),
  });

const readinessVerifyRoutes = verifyRouteOnGetAndPost({
    id: 'readiness.attest.verify',
    path: '/v1/readiness/attest/verify',
    family: 'trust',
    keyFamily: 'readiness',
    summary: 'Re-checks a readiness attestation {target, policy, evidence, custodian, verdict, attestsAt}.',
    params: {
      target: param.optionalText(),
      custodian: param.optionalText(),
      verdict: param.optionalText(),
      policy: param.optionalJson('{}'),
      evidence: param.optionalJson('[]'),
      attests_at: param.integer('attestsAt'),
    },
    rebuild: (p) =>
      readinessRecord({
        target: p.target,
        policy: parseJsonParam('policy', p.policy),
        evidence: parseJsonParam('evidence', p.evidence),
        custodian: p.custodian,
        verdict: p.verdict,
        attestsAt: parseIntegerParam(p.attests_at),
      }),
  });

const readinessStandard = freeRoute({
    id: 'readiness.standard',
    method: 'GET',
    path: '/v1/readiness/standard',
    family: 'trust',
    summary: 'The published containment-readiness standard that readiness attestations are judged against (versioned).',
    description: `The elements of ${READINESS_STANDARD_VERSION}, where each is read from, and what makes it evidenced. The version is carried in every finding of a readiness attestation.`,
    output: z.object({ standard: z.string(), verdicts: z.record(z.string(), z.string()), elements: z.array(z.object({ element: z.string(), where: z.string(), requirement: z.string() })) }),
    async handle() {
      return { body: READINESS_STANDARD };
    },
  });

export const readiness: Route[] = [readinessAttest, ...readinessVerifyRoutes, readinessStandard];
