import { canonicalText, type JsonObject, type JsonValue } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import { SIGNED_PROOF_WINDOW_SECONDS, type SignatureScheme } from '../../../kernel/offline-signatures.ts';
import { checkDid, verifyByDid } from './dids.ts';

/**
 * Version 3 (2026-11-28): a registration without the agent's proof is its payer's own chain, not
 * the agent's (registered_by names whose), so version and supersedes count within that chain.
 * Version 2 kept one chain per agent, opened by whoever paid first.
 */
export const CONTAINMENT_RULESET = {
  id: 'containment-registration',
  version: '3',
  chains: 'a registration the agent signed (agent_proof VERIFIED) extends the agent\'s own chain; any other extends its payer\'s own chain of the agent (registered_by); version and supersedes count within that chain',
  signed_message: 'RFC 8785 text of {agent_did, action, trigger, target, signer}',
  agent_proof_message: 'RFC 8785 text of {purpose: "containment-register", agent_did, emergency_contact_did (or null), policy (or null), rules (as sent, or []), signed_at}',
  agent_proof_window_seconds: SIGNED_PROOF_WINDOW_SECONDS,
} as const;

export interface ContainmentRule {
  action: 'notify' | 'throttle';
  trigger: string;
  target: string;
  signer: string;
  signature: string;
}

/** The agent's own signature over the whole declaration (agent-proof.ts). */
export interface AgentProof {
  signed_at: number;
  signature: string;
}

export interface ContainmentInput {
  agent_did: string;
  emergency_contact_did?: string | undefined;
  policy?: JsonObject | undefined;
  rules?: ContainmentRule[] | undefined;
  agent_proof?: AgentProof | undefined;
}

/** What the service found of the agent's proof: the proof as sent (signed_at, signature) and its offline check. */
export type AgentProofVerdict =
  | { status: 'NOT-PROVIDED' }
  | { status: 'VERIFIED'; scheme: SignatureScheme | null; signed_at: number; signature: string }
  | { status: 'FAILED'; scheme: SignatureScheme | null; signed_at: number; signature: string; reason: string }
  | { status: 'UNRESOLVED'; signed_at: number; signature: string; reason: string };

/** Whose declaration a registration is: the agent's (its proof verified) or the payer's that sent it. */
export type Declarer = { party: 'agent'; did: string } | { party: 'payer'; address: string };

/** What the stream adds to a registration: its place in its chain, whose chain it is, and who controls it now. */
export interface RegistrationContext {
  registeredBy: Declarer;
  version: number;
  supersedes: string | null;
  now: number;
  agentProof: AgentProofVerdict;
  /** Whether only a registration the agent signs may supersede this one (agent proof verified, now or before). */
  agentControlled: boolean;
}

/** What a rule's signer signs: the rule bound to the agent, as RFC 8785 text. */
export function ruleMessage(agentDid: string, rule: Omit<ContainmentRule, 'signature'>): string {
  return canonicalText({ agent_did: agentDid, action: rule.action, trigger: rule.trigger, target: rule.target, signer: rule.signer });
}

function verifyRule(agentDid: string, rule: ContainmentRule): JsonObject {
  const checked = verifyByDid(rule.signer, ruleMessage(agentDid, rule), rule.signature);
  return checked.ok ? { status: 'VERIFIED', scheme: checked.scheme ?? null } : { status: 'FAILED', scheme: checked.scheme ?? null, reason: checked.reason };
}

/** The registration as signed: readiness from the supplied parts only, never defaulted to ready. */
export function assessContainment(input: ContainmentInput, context: RegistrationContext): JsonObject {
  const agent = checkDid(input.agent_did);
  const contact = checkDid(input.emergency_contact_did);
  const rules = (input.rules ?? []).map((rule) => ({ ...rule, verification: verifyRule(input.agent_did, rule) }));
  const gaps: JsonValue[] = [];
  if (agent.syntax === 'invalid') gaps.push({ element: 'agent_did', reason: agent.reason });
  if (contact.syntax === 'invalid') gaps.push({ element: 'emergency_contact_did', reason: contact.reason });
  if (!input.policy || Object.keys(input.policy).length === 0) gaps.push({ element: 'policy', reason: 'no declared policy' });
  if (!rules.some((r) => (r.action === 'notify' || r.action === 'throttle') && r.verification['status'] === 'VERIFIED'))
    gaps.push({ element: 'rules', reason: rules.length === 0 ? 'no signed notify or throttle rule' : 'no notify or throttle rule whose signature verifies' });
  const readiness = gaps.length === 0 ? 'READY' : 'READINESS-GAP';
  const content = {
    kind: 'containment-registration',
    ruleset: { ...CONTAINMENT_RULESET },
    agent_did: input.agent_did,
    agent_did_check: agent,
    emergency_contact_did: input.emergency_contact_did ?? null,
    emergency_contact_did_check: contact,
    policy: input.policy ?? null,
    rules,
    agent_proof: { ...context.agentProof },
    readiness,
    outcome: readiness,
    gaps,
    authority: 'none: the service holds no kill-switch authority; it attests readiness and relays the signed rules verbatim, and cannot notify, throttle or stop the agent',
    evidence_source: 'caller-supplied',
    not_performed: [{ check: 'resolving DIDs other than did:key and did:pkh', reason: 'no network: reported as unresolved (offline)' }],
  };
  return { ...content, registration_id: canonicalSha256(content), registered_by: { ...context.registeredBy }, version: context.version, supersedes: context.supersedes, agent_controlled: context.agentControlled, registeredAt: context.now };
}
