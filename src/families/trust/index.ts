import { z } from 'zod';
import { veritrackAttest } from '../../commands/trust/veritrack-attest.ts';
import { identityRecord, readinessRecord, receiptRecord, trustedRouteRecord, veritrackRecord } from '../../kernel/route-kit/records.ts';
import type { JsonValue } from '../../signing/rfc8785.ts';
import { agentReputation } from '../../commands/trust/agent-reputation.ts';
import { identityControlProof } from '../../commands/trust/identity-control-proof.ts';
import { readinessAttest } from '../../commands/trust/readiness-attest.ts';
import { receiptsMint } from '../../commands/trust/receipts-mint.ts';
import {
  catalogEntrySchema,
  catalogRegisterInput,
  controlProofInput,
  controlProofRecordSchema,
  readinessInput,
  readinessRecordSchema,
  receiptInput,
  receiptRecordSchema,
  reputationInput,
  reputationRecordSchema,
  trustedRouteInput,
  trustedRouteRecordSchema,
  veritrackInput,
} from '../../commands/trust/schemas.ts';
import { trustedRoute } from '../../commands/trust/trusted-route.ts';
import { verifyCatalogRegister } from '../../commands/trust/verify-catalog-register.ts';
import { READINESS_STANDARD, READINESS_STANDARD_VERSION } from '../../engines/trust/readiness.ts';
import { REPUTATION_RULE_VERSION } from '../../engines/trust/reputation.ts';
import { DEFAULT_MIN_HISTORY, TRUSTED_ROUTE_RULE_VERSION } from '../../engines/trust/trusted-route.ts';
import { VERIFY_CATALOG_RULE_VERSION } from '../../engines/trust/verify-catalog.ts';
import { jsonObject, signatureEnvelope, signedResponse, token } from '../../kernel/route-kit/schemas.ts';
import { freeRoute, pricedOperation, defineFamily, type Route } from '../../kernel/operation.ts';
import { bodyVerifyParams, param, parseIntegerParam, parseJsonParam, rebuildFromBody, verifyRoute } from '../../kernel/route-kit/verify-route.ts';

const veritrackRecordSchema = z.object({
  kind: token,
  attestedAt: z.number().int().describe('Unix seconds, stamped by the service'),
  claim: jsonObject,
});

const routes: Route[] = [
  pricedOperation({
    id: 'veritrack.attest',
    method: 'POST',
    path: '/v1/veritrack/attest',
    family: 'trust',
    priceUsd: '0.25',
    summary: 'Signs and SHA-256 hashes an arbitrary claim into a receipt.',
    description:
      'The claim (any JSON object, nested at most 32 levels and at most 4096 bytes in RFC 8785 form, so that the free GET verify route can carry it) is carried verbatim into the record {kind, attestedAt, claim}, canonicalised with RFC 8785, hashed with SHA-256 and signed with the veritrack Ed25519 key.',
    inputFrom: 'json',
    input: veritrackInput,
    example: { kind: 'model-eval', claim: { model: 'example-7b', benchmark: 'arc-easy', score: 0.81 } },
    output: signedResponse(veritrackRecordSchema, null),
    keyFamily: 'veritrack',
    signedMember: null,
    verifyPath: '/v1/veritrack/verify',
    command: veritrackAttest,
  }),
  pricedOperation({
    id: 'receipts.mint',
    method: 'POST',
    path: '/v1/receipts/mint',
    family: 'trust',
    priceUsd: '0.25',
    summary: 'Typed signed receipt for any transaction or action; mintsAt stamped; caller fields carried verbatim.',
    description:
      'Record {kind: "receipt", receiptType, tx, action, actor?, subject?, metadata?, mintsAt}. Caller fields are carried verbatim; an optional member that is empty is left out, so the verify route rebuilds it from its defaults. A missing receiptType, tx or action is INVALID-INPUT, answered 422 before any payment.',
    inputFrom: 'json',
    input: receiptInput,
    example: { receiptType: 'payment', tx: '0x6b1f0c7e3d5a9b2c4e8f1a0d3c5b7e9f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1f', action: 'settled invoice 2026-0142', actor: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', metadata: { amountUsd: '12.50' } },
    output: signedResponse(receiptRecordSchema, null),
    keyFamily: 'receipts',
    signedMember: null,
    verifyPath: '/v1/receipts/verify',
    command: receiptsMint,
  }),
  pricedOperation({
    id: 'identity.control-proof',
    method: 'POST',
    path: '/v1/identity/control-proof',
    family: 'trust',
    priceUsd: '0.20',
    summary: 'Signed proof that an entity documents control of an identifier (key, DID or wallet).',
    description:
      'Record {identifier, control_method, control_evidence?, claimer?, verdict, claimsAt}. CONTROL-VERIFIED only when control_evidence {message, signature} verifies for the identifier (EIP-191 for an EVM address or did:pkh:eip155, Ed25519 for a did:key or raw key); CONTROL-FAILED when it does not; CONTROL-DOCUMENTED (carried verbatim, not verified) when it cannot be checked offline; NOT-PROVIDED without evidence. A missing identifier or control_method is INVALID-INPUT, answered 422 before any payment.',
    inputFrom: 'json',
    input: controlProofInput,
    example: {
      identifier: 'did:web:agents.example.org',
      control_method: 'did-web',
      control_evidence: { didDocumentUrl: 'https://agents.example.org/.well-known/did.json' },
      claimer: 'agents.example.org operations',
    },
    output: signedResponse(controlProofRecordSchema, null),
    keyFamily: 'identity',
    signedMember: null,
    verifyPath: '/v1/identity/control-proof/verify',
    command: identityControlProof,
  }),
  pricedOperation({
    id: 'readiness.attest',
    method: 'POST',
    path: '/v1/readiness/attest',
    family: 'trust',
    priceUsd: '0.25',
    summary: 'Containment-readiness attestation from a supplied policy snapshot; never defaulted to ready.',
    description: `Record {target, policy, evidence, custodian, verdict, attestsAt}, judged against the published standard ${READINESS_STANDARD_VERSION} (GET /v1/readiness/standard): READY only when every element is present and evidenced, otherwise READINESS-GAP with every element and its status in evidence.`,
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
    command: readinessAttest,
  }),
  pricedOperation({
    id: 'agent-reputation.composite',
    method: 'POST',
    path: '/v1/agent-reputation',
    family: 'trust',
    priceUsd: '0.25',
    summary: 'Composite from supplied signed outcome events; reputation_score in [0,1].',
    description: `Every event's signature (Ed25519 or EIP-191, over the RFC 8785 text of event) is checked; unparseable, unsigned, self-attested or badly signed events are listed with the reason and left out. Rule ${REPUTATION_RULE_VERSION}: counts, success rate, Wilson lower bound, dispute rate, recency weighting from the newest event, distinct counterparties, reputation_score in [0,1] and a verdict. No valid event: INSUFFICIENT-DATA and no score.`,
    inputFrom: 'json',
    input: reputationInput,
    example: {
      agent: 'did:web:agents.example.org:eu-1',
      events: [{ event: { agent: 'did:web:agents.example.org:eu-1', outcome: 'success', at: 1767225600, counterparty: 'shop.example' }, signature: '00'.repeat(64), signer: '11'.repeat(32) }],
    },
    output: reputationRecordSchema.extend(signatureEnvelope),
    keyFamily: 'agent-reputation',
    signedMember: null,
    verifyPath: '/v1/agent-reputation/verify',
    command: agentReputation,
  }),
  pricedOperation({
    id: 'agent-reputation.trusted-route',
    method: 'POST',
    path: '/v1/agent-reputation/trusted-route',
    family: 'trust',
    priceUsd: '0.30',
    summary: 'Ranks routes from supplied per-route outcome histories; routes with insufficient history rank last.',
    description: `Record {routes_count, ranking}. Rule ${TRUSTED_ROUTE_RULE_VERSION}: score from the Wilson lower bound of success, median latency and mean cost; a component with no data is reported as not provided and left out of the score. Routes under min_history (default ${DEFAULT_MIN_HISTORY}) rank last, flagged, with no score. Ties: score, then price, then id.`,
    inputFrom: 'json',
    input: trustedRouteInput,
    example: {
      routes: [
        { id: 'route-a', price_usd: 0.02, history: [{ success: true, latency_ms: 120 }, { success: true, latency_ms: 140 }, { success: false, latency_ms: 900 }] },
        { id: 'route-b', price_usd: 0.01, history: [{ success: true, latency_ms: 300 }] },
      ],
      min_history: 3,
    },
    output: signedResponse(trustedRouteRecordSchema, null),
    keyFamily: 'trusted-route',
    signedMember: null,
    verifyPath: '/v1/agent-reputation/trusted-route/verify',
    command: trustedRoute,
  }),
  pricedOperation({
    id: 'verify-catalog.register',
    method: 'POST',
    path: '/v1/verify-catalog/register',
    family: 'trust',
    priceUsd: '0.25',
    summary: 'Registers a signed output of any service in a public catalog.',
    description: `Recomputes SHA-256 over the RFC 8785 form of claim and checks claim_sha256; assesses the signature (well-formed; verified when public_key is supplied); counts references to this service's host in the claim. Rule ${VERIFY_CATALOG_RULE_VERSION}: a trust index in 0..1 only when integrity and signature are verified and source_url is https; otherwise null with the reasons. The entry is persisted in the stream verify-catalog-<entryId>.`,
    inputFrom: 'json',
    input: catalogRegisterInput,
    example: { claim: { kind: 'model-eval', attestedAt: 1767225600, claim: { score: 0.81 } }, source_url: 'https://example.org/attestations/1' },
    output: signedResponse(catalogEntrySchema, 'evidenceCore'),
    keyFamily: 'verify-catalog',
    signedMember: 'evidenceCore',
    verifyPath: '/v1/verify-catalog/recheck',
    command: verifyCatalogRegister,
  }),
  freeRoute({
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
  }),

  verifyRoute({
    id: 'veritrack.verify',
    method: 'GET',
    path: '/v1/veritrack/verify',
    family: 'trust',
    keyFamily: 'veritrack',
    summary: 'Re-checks a veritrack attestation {kind, attestedAt, claim}.',
    params: { kind: param.text(), attested_at: param.integer(), claim: param.optionalJson('{}') },
    rebuild: (p) => veritrackRecord({ kind: p.kind, attestedAt: parseIntegerParam(p.attested_at), claim: parseJsonParam('claim', p.claim) }),
  }),
  verifyRoute({
    id: 'receipts.verify',
    method: 'GET',
    path: '/v1/receipts/verify',
    family: 'trust',
    keyFamily: 'receipts',
    summary: 'Re-checks a typed receipt {kind, receiptType, tx, action, actor?, subject?, metadata?, mintsAt}.',
    params: {
      kind: param.optionalText(),
      receipt_type: param.optionalText(),
      tx: param.optionalText(),
      action: param.optionalText(),
      actor: param.optionalText(),
      subject: param.optionalText(),
      metadata: param.optionalJson('{}'),
      mints_at: param.integer(),
    },
    rebuild: (p) =>
      receiptRecord({
        kind: p.kind,
        receiptType: p.receipt_type,
        tx: p.tx,
        action: p.action,
        actor: p.actor,
        subject: p.subject,
        metadata: parseJsonParam('metadata', p.metadata),
        mintsAt: parseIntegerParam(p.mints_at),
      }),
  }),
  verifyRoute({
    id: 'identity.control-proof.verify',
    method: 'GET',
    path: '/v1/identity/control-proof/verify',
    family: 'trust',
    keyFamily: 'identity',
    summary: 'Re-checks an identity control-proof {identifier, control_method, control_evidence?, claimer?, verdict, claimsAt}.',
    params: {
      identifier: param.optionalText(),
      control_method: param.optionalText(),
      claimer: param.optionalText(),
      verdict: param.optionalText(),
      control_evidence: param.optionalJson('{}'),
      claims_at: param.integer(),
    },
    rebuild: (p) =>
      identityRecord({
        identifier: p.identifier,
        control_method: p.control_method,
        control_evidence: parseJsonParam('control_evidence', p.control_evidence),
        claimer: p.claimer,
        verdict: p.verdict,
        claimsAt: parseIntegerParam(p.claims_at),
      }),
  }),
  verifyRoute({
    id: 'readiness.attest.verify',
    method: 'GET',
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
      attests_at: param.integer(),
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
  }),
  verifyRoute({
    id: 'agent-reputation.verify',
    method: 'GET',
    path: '/v1/agent-reputation/verify',
    family: 'trust',
    keyFamily: 'agent-reputation',
    summary: 'Re-checks an agent reputation composite (evidence = the full composite body as JSON).',
    params: { evidence: param.json() },
    rebuild: (p) => parseJsonParam('evidence', p.evidence),
  }),
  verifyRoute({
    id: 'agent-reputation.trusted-route.verify',
    method: 'GET',
    path: '/v1/agent-reputation/trusted-route/verify',
    family: 'trust',
    keyFamily: 'trusted-route',
    summary: 'Re-checks a trusted-route ranking {routes_count, ranking} (ranking = the ranking array as JSON).',
    params: { ranking: param.json() },
    rebuild: (p) => {
      const ranking = parseJsonParam('ranking', p.ranking);
      return Array.isArray(ranking) ? trustedRouteRecord(ranking as JsonValue[]) : { routes_count: 0, ranking };
    },
  }),
  verifyRoute({
    id: 'verify-catalog.recheck',
    method: 'POST',
    path: '/v1/verify-catalog/recheck',
    family: 'trust',
    keyFamily: 'verify-catalog',
    summary: 'Re-checks a verify-catalog registration (body = the evidenceCore as JSON).',
    params: bodyVerifyParams,
    rebuild: rebuildFromBody,
  }),
];

export const trustFamily = defineFamily('trust', routes);
