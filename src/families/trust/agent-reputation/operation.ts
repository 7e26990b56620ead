import { z } from 'zod';
import { REPUTATION_KIND, REPUTATION_RULESET, composeReputation } from './engine.ts';
import { rulesetMember, signatureEnvelope, jsonValue } from '../../../kernel/route-kit/schemas.ts';
import { pricedOperation, type Route, fromEngine } from '../../../kernel/operation.ts';
import { param, parseJsonParam, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';
import { at, shortText } from '../shared/schemas.ts';

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
  kind: z.literal(REPUTATION_KIND),
  agent: z.string(),
  ruleset: rulesetMember(REPUTATION_RULESET),
  self_attestation_check: z
    .object({ compared: z.enum(['key identity', 'text']), agent_key: z.string().optional(), detail: z.string() })
    .describe("How a signer was told from the agent: by key (agent_key, ed25519:<hex> or evm:<address>) when the agent names one, else by text"),
  events_supplied: z.number().int(),
  rejected_events: z.array(z.object({ index: z.number().int(), reason: z.string() })),
  evidence_source: z.literal('caller-supplied').describe('The events were supplied by the caller; their signatures are checked, the outcomes they attest are not'),
  not_performed: z.array(z.object({ check: z.string(), reason: z.string() })),
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

const agentReputationOperation = pricedOperation({
    id: 'agent-reputation.composite',
    method: 'POST',
    path: '/v1/agent-reputation',
    family: 'trust',
    priceUsd: '0.25',
    summary: 'Composite from supplied signed outcome events; reputation_score in [0,1].',
    description: `Every event's signature (Ed25519 or EIP-191, over the RFC 8785 text of event) is checked; unparseable, unsigned, self-attested (signed by the agent's own key, however spelled: did:key, hex or base64 key, address or did:pkh) or badly signed events are listed with the reason and left out. Ruleset ${REPUTATION_RULESET.id}/${REPUTATION_RULESET.version}: counts, success rate, Wilson lower bound, dispute rate, recency weighting from the newest event, distinct counterparties, reputation_score in [0,1] and a verdict. No valid event: INSUFFICIENT-DATA and no score. Free re-check: GET /v1/agent-reputation/verify?evidence=<the composite as JSON>, or POST to the same path with the JSON body {evidence, sha256, signature} when the composite is too large for a URL.`,
    inputFrom: 'json',
    input: reputationInput,
    // Genuinely signed (Ed25519 over the RFC 8785 text of each event) by two counterparties'
    // keys, so that the example scores; a placeholder signature would only show a rejection.
    example: {
      agent: 'did:web:agents.example.org:eu-1',
      events: [
        {
          event: { agent: 'did:web:agents.example.org:eu-1', outcome: 'success', at: 1767225600, counterparty: 'shop.example', amount: '12.50' },
          signature: 'aeccd7abd08882c92040505d37ff1782b17805c51865696dbe04ba1a9da40eb620f39c6d54aecc3ba9599758ba92031cd12109d8c931d61a4e702ca5fd16430e',
          signer: 'c8a40652175d18599c12b5995db71a1b87e4e4b3ff011c34fe4c8945221887c1',
        },
        {
          event: { agent: 'did:web:agents.example.org:eu-1', outcome: 'success', at: 1767139200, counterparty: 'books.example' },
          signature: '1802f984216abedf62b24e83f94f5ed73ebdbd2fd9715f7085db7b74deb1128fa5324e8f22bd8e40a26ae570d7406ad5973ac41d19188e96ec75a5f55e53630c',
          signer: 'cc96a869efc418777154203fa5a17cbfa6496e3700d086a15d5734b4320b648b',
        },
        {
          event: { agent: 'did:web:agents.example.org:eu-1', outcome: 'failure', at: 1766966400, counterparty: 'shop.example' },
          signature: '35745e633d11ee5383dc2b4ce8f3294174dbbc05a2477ec2baf62b39256ac5d7910d623fc7d3f44feb95ed73f0f6efb9a22b815f2b11367a69860177928c1f0d',
          signer: 'c8a40652175d18599c12b5995db71a1b87e4e4b3ff011c34fe4c8945221887c1',
        },
      ],
    },
    output: reputationRecordSchema.extend(signatureEnvelope),
    keyFamily: 'agent-reputation',
    signedMember: null,
    verifyPath: '/v1/agent-reputation/verify',
    command: fromEngine(composeReputation),
  });

// The composite, as JSON text, is the record the verify routes re-check. On POST too: 50 reasons
// quoting a long agent name in CJK or emoji, percent-encoded, pass the HTTP server's 64 KiB
// header limit (MAX_HEADER_BYTES).
const agentReputationVerify = verifyRouteOnGetAndPost({
  id: 'agent-reputation.verify',
  path: '/v1/agent-reputation/verify',
  family: 'trust',
  keyFamily: 'agent-reputation',
  summary: 'Re-checks an agent reputation composite (evidence = the full composite body as JSON text).',
  params: { evidence: param.json('the composite record (the answer without sha256, ed25519Sig, keyId, publicKeyUrl and verifyUrl)') },
  rebuild: (p: { evidence: string }) => parseJsonParam('evidence', p.evidence),
});

export const agentReputation: Route[] = [agentReputationOperation, ...agentReputationVerify];
