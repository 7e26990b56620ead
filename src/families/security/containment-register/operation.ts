import { z } from 'zod';
import { handleCommand } from '../../../kernel/decider.ts';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { jsonObject, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { bodyVerifyParams, rebuildFromBody, verifyRouteOnGetAndPost } from '../../../kernel/route-kit/verify-route.ts';
import { SIGNED_PROOF_WINDOW_SECONDS } from '../../../kernel/offline-signatures.ts';
import { checkAgentProof, staleAgentProofRefusal } from './agent-proof.ts';
import { containmentDecider, supersessionRefusal } from './decider.ts';
import { canonicalDid } from './dids.ts';
import { agentChainStream, parseContainmentEvent } from './events.ts';
import { recordedRegistration, registrationChain } from './registration-chain.ts';

const rule = z
  .object({
    action: z.enum(['notify', 'throttle']),
    trigger: z.string().min(1).max(1_000).describe('The condition, as the signer wrote it'),
    target: z.string().min(1).max(1_000).describe('Who is notified or what is throttled'),
    signer: z.string().min(1).max(200).describe('did:key (Ed25519), an EVM address or did:pkh:eip155:<chain>:<address> (EIP-191)'),
    signature: z.string().min(1).max(300).describe('Over the RFC 8785 text of {agent_did, action, trigger, target, signer}: Ed25519 (hex or base64) or EIP-191 (65 bytes hex)'),
  })
  .strict();

const agentProof = z
  .object({
    signed_at: z.number().int().nonnegative().describe(`Unix seconds; within ${SIGNED_PROOF_WINDOW_SECONDS} s of the service's clock, else 422`),
    signature: z
      .string()
      .min(1)
      .max(300)
      .describe(
        'By the agent DID itself over the RFC 8785 text of {purpose: "containment-register", agent_did, emergency_contact_did (or null), policy (or null), rules (as sent, or []), signed_at}: Ed25519 (hex or base64) for a did:key, EIP-191 personal_sign (65 bytes hex) for a did:pkh:eip155',
      ),
  })
  .strict()
  .describe('The agent\'s own signature over this registration: the registration then extends the agent\'s own chain, which only a later proof of the agent extends');

export const containmentInput = z
  .object({
    agent_did: z
      .string()
      .min(1)
      .max(500)
      // Equivalent spellings of one DID would name different agents, each registrable by anyone.
      .refine((did) => canonicalDid(did) === did, { error: (issue) => `not in its canonical form: send ${canonicalDid(String(issue.input))}` }),
    emergency_contact_did: z.string().max(500).optional(),
    policy: jsonObject.optional().describe('The declared containment policy, relayed verbatim'),
    rules: z.array(rule).max(50).optional(),
    agent_proof: agentProof.optional(),
  })
  .strict();

const registration = z.looseObject({
  kind: z.literal('containment-registration'),
  readiness: z.enum(['READY', 'READINESS-GAP']),
  gaps: z.array(z.object({ element: z.string(), reason: z.string() })),
  rules: z.array(z.looseObject({ verification: z.looseObject({ status: z.enum(['VERIFIED', 'FAILED']) }) })),
  agent_proof: z.looseObject({ status: z.enum(['VERIFIED', 'FAILED', 'NOT-PROVIDED', 'UNRESOLVED']), scheme: z.enum(['ed25519', 'eip191']).nullable().optional(), signed_at: z.number().int().optional(), reason: z.string().optional() }),
  agent_controlled: z.boolean(),
  registered_by: z
    .union([z.object({ party: z.literal('agent'), did: z.string() }), z.object({ party: z.literal('payer'), address: z.string() })])
    .optional()
    .describe("Whose chain the registration extends: the agent's (its proof verified) or its payer's; absent in records signed before ruleset version 3"),
  authority: z.string(),
  registration_id: z.string(),
  version: z.number().int(),
  supersedes: z.string().nullable(),
  registeredAt: z.number().int(),
});

export const containmentRegister = pricedOperation({
  id: 'containment.register',
  method: 'POST',
  path: '/v1/containment/register',
  family: 'security',
  priceUsd: '0.25',
  summary: 'Attests readiness and relays signed notify/throttle rules.',
  description:
    `Each rule's signature is verified offline (did:key Ed25519; EIP-191 for an EVM address or did:pkh) over the RFC 8785 text of {agent_did, action, trigger, target, signer}; DIDs are syntax-checked (did:key decoded; did:web and others unresolved (offline)); agent_did must be in its canonical form (did:web host and did:pkh address in lower case, no needless percent-encoding), otherwise 422. READINESS-GAP lists every missing element: agent DID, emergency-contact DID, declared policy, a signed notify or throttle rule that verifies. Registrations are events in chains: one the agent signed (agent_proof verified) extends the agent's own chain, any other extends the payer's own chain of that agent (registered_by says whose); a later registration supersedes the earlier one of its chain (named in \`supersedes\`) and the history stays. No payer's registration blocks or changes another payer's. agent_proof is the agent DID's own signature (did:key Ed25519, did:pkh EIP-191; a did:web is unresolved (offline)) over the RFC 8785 text of {purpose: "containment-register", agent_did, emergency_contact_did (or null), policy (or null), rules (as sent, or []), signed_at}, signed_at within ${SIGNED_PROOF_WINDOW_SECONDS} s of the service's clock (else 422): a verified proof extends the agent's chain only with a signed_at later than the agent's last one (403 otherwise, before any charge: a replayed proof). The service holds no kill-switch authority.`,
  inputFrom: 'json',
  input: containmentInput,
  example: {
    agent_did: 'did:key:z6Mkj4typzeYrJ1kowMVJXd7LF8F2CdmQJE6rLpCesMssNJN',
    emergency_contact_did: 'did:web:ops.example.com',
    policy: { max_spend_per_day_usd: '50', escalation: 'notify the emergency contact, then throttle to read-only' },
    rules: [
      {
        action: 'notify',
        trigger: 'spend above 50 USD in 24 h',
        target: 'did:web:ops.example.com',
        signer: 'did:key:z6Mkj4typzeYrJ1kowMVJXd7LF8F2CdmQJE6rLpCesMssNJN',
        signature: '7d3264c35102cd77a667d9996485eb7b9e92a1b0a427f5cd3adbc421fc7576881f100fcc22d477ab21fd5aa19b6c5c0877492bc4256c52973f24f8cf5ed74105',
      },
    ],
  },
  output: signedResponse(registration, 'evidenceCore'),
  keyFamily: 'containment',
  signedMember: 'evidenceCore',
  verifyPath: '/v1/containment/verify',
  precheck: (i, _settings, now) => staleAgentProofRefusal(i, now),
  command: {
    async authorize(i, ctx) {
      const proof = checkAgentProof(i, ctx.now);
      const { state } = await registrationChain(ctx.store, i.agent_did, ctx.payer, proof);
      const refusal = supersessionRefusal(state, ctx.payer, proof);
      return refusal && { status: refusal.status, error: refusal.error, message: refusal.message };
    },
    // Every chain of one agent waits on the agent's: which chain a call extends reads the agent's.
    stateStream: (i) => agentChainStream(i.agent_did),
    async execute(i, ctx) {
      const { stream } = await registrationChain(ctx.store, i.agent_did, ctx.payer, checkAgentProof(i, ctx.now));
      const handled = await handleCommand(ctx.store, stream, containmentDecider, { input: i, payer: ctx.payer, paymentId: ctx.paymentId, now: ctx.now }, { origin: ctx.paymentId, parse: parseContainmentEvent, metadata: { paymentId: ctx.paymentId } });
      // A new registration answers with its record; a resumed call, with the one it wrote then.
      return { record: handled.events[0]?.data.registration ?? (await recordedRegistration(ctx.store, stream, handled.state, ctx.paymentId)) };
    },
  },
});

const containmentVerifyRoutes = verifyRouteOnGetAndPost({ id: 'containment.verify', path: '/v1/containment/verify', family: 'security', keyFamily: 'containment', summary: 'Re-checks a containment registration (body = the evidenceCore as JSON).', params: bodyVerifyParams, rebuild: rebuildFromBody });

export const containmentRoutes: Route[] = [containmentRegister, ...containmentVerifyRoutes];
