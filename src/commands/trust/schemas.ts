import { z } from 'zod';
import { hex64, jsonObject, jsonValue, token } from '../../kernel/route-kit/schemas.ts';
import { missingRequiredFields } from '../../engines/trust/required-fields.ts';
import { canonicalByteLength, type JsonObject } from '../../signing/rfc8785.ts';

/**
 * Input and output schemas of the Trust and Reputation operations (the catalogue's boundary).
 * Records are described member by member so that /openapi.json tells a verifier what it gets.
 */

/**
 * Wraps an object schema so that every absent or blank required field is named in one
 * message ("missing required fields: a, b") before the member-by-member checks run: the
 * 422 answer, free and unsigned, names them all at once, with one issue per field as well.
 */
export function requiringFields<S extends z.ZodType>(names: readonly string[], schema: S) {
  return z.preprocess((value, ctx) => {
    const missing = missingRequiredFields(value, names);
    if (missing.length > 0) {
      ctx.addIssue({ code: 'custom', path: [], message: `missing required field${missing.length === 1 ? '' : 's'}: ${missing.join(', ')}`, input: value });
      for (const name of missing) ctx.addIssue({ code: 'custom', path: [name], message: 'is required', input: value });
    }
    return value;
  }, schema);
}

/**
 * Caller content that a GET verify route must carry back in its query string: bounded so the
 * whole URL stays well under the HTTP server's header limit (MAX_HEADER_BYTES) even when
 * percent-encoded, which can triple its size, and fits the URL limits of common proxies.
 */
export const MAX_URL_VERIFIED_BYTES = 4096;
export const urlVerifiableObject = jsonObject.refine(
  (v: JsonObject) => canonicalByteLength(v) <= MAX_URL_VERIFIED_BYTES,
  `must be at most ${MAX_URL_VERIFIED_BYTES} bytes in RFC 8785 form (its free GET verify route carries it in the URL)`,
);

// ---- veritrack.attest
export const veritrackInput = z.object({ kind: token, claim: urlVerifiableObject }).strict();

const shortText = (max: number) => z.string().max(max);
const at = (what: string) => z.number().int().describe(`Unix seconds, stamped by the service (${what})`);

// ---- receipts.mint
export const receiptInput = requiringFields(
  ['receiptType', 'tx', 'action'],
  z
    .object({
      receiptType: token.describe('The receipt type, e.g. "payment", "delivery", "tool-call"'),
      tx: shortText(512).describe('Transaction hash or reference, carried verbatim'),
      action: shortText(512).describe('What was done, carried verbatim'),
      actor: shortText(512).optional(),
      subject: shortText(512).optional(),
      metadata: urlVerifiableObject.optional(),
    })
    .strict(),
);
export const receiptRecordSchema = z.object({
  kind: z.literal('receipt'),
  receiptType: z.string(),
  tx: z.string(),
  action: z.string(),
  actor: z.string().optional().describe('Omitted when empty (the verify default)'),
  subject: z.string().optional().describe('Omitted when empty (the verify default)'),
  metadata: z.record(z.string(), z.json()).optional().describe('Omitted when empty (the verify default {})'),
  mintsAt: at('mint time'),
});

// ---- identity.control-proof
export const controlProofInput = requiringFields(
  ['identifier', 'control_method'],
  z
    .object({
      identifier: shortText(512).describe('EVM address, did:pkh:eip155, did:key (Ed25519), raw Ed25519 key (hex/base64), did:web, DNS name or URL'),
      control_method: token.describe('How control is shown, e.g. "eip191-signature", "ed25519-signature", "dns-txt", "did-web"'),
      control_evidence: urlVerifiableObject
        .optional()
        .describe('For a checkable identifier: {message, signature}. Anything else is carried verbatim as documented, not verified'),
      claimer: shortText(512).optional(),
    })
    .strict(),
);
export const controlProofRecordSchema = z.object({
  identifier: z.string(),
  control_method: z.string(),
  control_evidence: z.record(z.string(), z.json()).optional().describe('Omitted when empty (the verify default {})'),
  claimer: z.string().optional().describe('Omitted when empty (the verify default)'),
  verdict: z.enum(['CONTROL-VERIFIED', 'CONTROL-DOCUMENTED', 'CONTROL-FAILED', 'NOT-PROVIDED']),
  claimsAt: at('claim time'),
});

// ---- readiness.attest
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
  standard: z.string(),
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
export const reputationInput = z
  .object({
    agent: shortText(512).min(1).describe('The agent the composite is about'),
    events: z
      .array(jsonValue)
      .max(50)
      .describe('At most 50 signed outcome events {event: {agent, outcome, at, counterparty?, amount?}, signature, signer}; a bad one is reported, not refused'),
  })
  .strict();
export const reputationRecordSchema = z.object({
  agent: z.string(),
  rule: z.string(),
  events_supplied: z.number().int(),
  rejected_events: z.array(z.object({ index: z.number().int(), reason: z.string() })),
  outcome: z.enum(['SCORED', 'INSUFFICIENT-DATA']),
  counts: z.object({ valid: z.number(), rejected: z.number(), success: z.number(), failure: z.number(), dispute: z.number() }).optional(),
  success_rate: z.number().optional(),
  wilson_lower_bound: z.number().optional(),
  dispute_rate: z.number().optional(),
  recency_weighted_success_rate: z.number().optional(),
  recency_half_life_seconds: z.number().optional(),
  newest_event_at: z.number().optional(),
  oldest_event_at: z.number().optional(),
  distinct_counterparties: z.number().optional(),
  distinct_signers: z.number().optional(),
  weights: z.record(z.string(), z.number()).optional(),
  reputation_score: z.number().min(0).max(1).optional().describe('Absent when INSUFFICIENT-DATA'),
  verdict: z.string(),
  composedAt: at('composition time'),
});

// ---- agent-reputation.trusted-route
const nonNegative = z.number().nonnegative();
export const trustedRouteInput = z
  .object({
    routes: z
      .array(
        z
          .object({
            id: token,
            price_usd: nonNegative.optional(),
            history: z.array(z.object({ success: z.boolean(), latency_ms: nonNegative.optional(), cost_usd: nonNegative.optional() }).strict()).max(10_000),
          })
          .strict(),
      )
      .min(1)
      .max(20)
      .superRefine((routes, ctx) => {
        const seen = new Set<string>();
        routes.forEach((r, i) => {
          if (seen.has(r.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate route id ${r.id}`, input: r.id });
          seen.add(r.id);
        });
      }),
    min_history: z.number().int().min(1).max(10_000).optional().describe('Outcomes a route needs to be ranked on merit (default 5)'),
  })
  .strict();
const rankingEntry = z.object({
  rank: z.number().int(),
  id: z.string(),
  score: z.number().min(0).max(1).nullable(),
  history_count: z.number().int(),
  success_rate: z.number().nullable(),
  wilson_lower_bound: z.number(),
  median_latency_ms: z.number().nullable(),
  mean_cost_usd: z.number().nullable(),
  price_usd: z.number().nullable(),
  insufficient_history: z.boolean(),
  not_provided: z.array(z.string()),
  min_history: z.number().int(),
  rule: z.string(),
});
export const trustedRouteRecordSchema = z.object({ routes_count: z.number().int(), ranking: z.array(rankingEntry) });

// ---- verify-catalog.register
export const catalogRegisterInput = z
  .object({
    claim: jsonObject.describe('The signed output (canonical record) of any service'),
    claim_sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters').optional(),
    signature: shortText(1024).optional().describe('Ed25519 (64 bytes) or EIP-191 (65 bytes), hex or base64'),
    public_key: shortText(512).optional().describe('Ed25519 key (hex, base64, did:key) or EVM address'),
    source_url: shortText(2048).optional().describe('Where the output is published; https makes it URL-attested'),
  })
  .strict();
export const catalogEntrySchema = z.object({
  entryId: z.string(),
  rule: z.string(),
  claim: z.record(z.string(), z.json()),
  claim_sha256: hex64,
  supplied_claim_sha256: z.string().optional(),
  integrity: z.enum(['VERIFIED', 'MISMATCH', 'NOT-PROVIDED']),
  signature: z.object({
    status: z.enum(['VERIFIED', 'FAILED', 'WELL-FORMED', 'MALFORMED', 'NOT-PROVIDED']),
    detail: z.string(),
    value: z.string().optional(),
    public_key: z.string().optional(),
  }),
  source: z.object({ status: z.enum(['URL-ATTESTED', 'NOT-HTTPS', 'NOT-PROVIDED']), url: z.string().optional() }),
  service_host: z.string(),
  service_references: z.number().int(),
  trust_index: z.number().min(0).max(1).nullable().describe('null (deferred) unless integrity and signature are verified and the source is URL-attested'),
  deferred_reasons: z.array(z.string()),
  registeredAt: at('registration time'),
});
