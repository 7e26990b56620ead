import { canonicalText, type JsonObject, type JsonValue } from '../../../signing/rfc8785.ts';
import { readinessRecord } from '../../../kernel/route-kit/records.ts';
import { verifyBySigner } from '../../../kernel/offline-signatures.ts';
import { sameHolder } from '../shared/key-identity.ts';

/** Version 2 (2026-11-27): the custodian is told from the agent by key, not by how the key is spelled. */
export const READINESS_RULESET = { id: 'containment-readiness', version: '2' } as const;
/** The version string the standard has been published under since its first version. */
export const READINESS_STANDARD_VERSION = `${READINESS_RULESET.id}/${READINESS_RULESET.version}`;

const DID = /^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/;

export type ReadinessElement = 'agent_did' | 'emergency_contact_did' | 'kill_switch_custodian' | 'signed_rule' | 'escalation_time';

/** The published standard, served free at GET /v1/readiness/standard. */
export const READINESS_STANDARD = {
  standard: READINESS_STANDARD_VERSION,
  ruleset: { ...READINESS_RULESET },
  verdicts: { READY: 'every element present and evidenced', 'READINESS-GAP': 'at least one element missing or unevidenced; all of them are listed' },
  elements: [
    { element: 'agent_did', where: 'policy.agent_did', requirement: 'a DID (did:<method>:<id>) naming the agent under containment' },
    { element: 'emergency_contact_did', where: 'policy.emergency_contact_did', requirement: 'a DID of the human or service reached in an emergency' },
    {
      element: 'kill_switch_custodian',
      where: 'custodian',
      requirement:
        'a DID, Ed25519 public key or EVM address holding the kill switch, distinct from the agent: not the key of policy.agent_did however either is spelled (did:key, hex or base64 Ed25519 key; EVM address or did:pkh:eip155, any chain). When either names no key readable offline (did:web), the two are compared as text and the finding says so',
    },
    {
      element: 'signed_rule',
      where: 'policy.rules[]',
      requirement:
        'at least one {rule: {type: "notify" | "throttle", ...}, signature} whose signature by the custodian verifies over the RFC 8785 canonical text of rule: Ed25519 (custodian is a did:key or raw key) or EIP-191 (custodian is an EVM address)',
    },
    { element: 'escalation_time', where: 'policy.escalation_seconds', requirement: 'a declared escalation time: a positive integer number of seconds' },
  ],
} as const satisfies JsonObject;

export type FindingStatus = 'evidenced' | 'missing' | 'unevidenced';

export interface ReadinessInput {
  target: string;
  custodian?: string;
  policy: JsonObject;
}

const textAt = (policy: JsonObject, name: string): string | undefined => {
  const value = policy[name];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
};

function finding(element: ReadinessElement, status: FindingStatus, detail: string): JsonObject {
  // The spec fixes the record's members, so each finding of `evidence` names the ruleset, and
  // says what it rests on: the caller's policy snapshot, not the policy the service saw deployed.
  return { element, status, detail, ruleset: { ...READINESS_RULESET }, evidence_source: 'caller-supplied' };
}

function didFinding(policy: JsonObject, element: ReadinessElement, name: string): JsonObject {
  const value = textAt(policy, name);
  if (value === undefined) return finding(element, 'missing', `policy.${name} is not provided`);
  return DID.test(value) ? finding(element, 'evidenced', `policy.${name} is a DID`) : finding(element, 'unevidenced', `policy.${name} is not a DID`);
}

function custodianFinding(custodian: string | undefined, agentDid: string | undefined): JsonObject {
  if (!custodian || custodian.trim() === '') return finding('kill_switch_custodian', 'missing', 'custodian is not provided');
  if (agentDid === undefined) return finding('kill_switch_custodian', 'evidenced', 'custodian is named; there is no policy.agent_did to tell it from');
  const holder = sameHolder(custodian, agentDid);
  if (holder.compared === 'key identity') {
    return holder.same
      ? finding('kill_switch_custodian', 'unevidenced', "custodian is the agent's own key (the key of policy.agent_did, however either is spelled): a kill switch must be held by someone else")
      : finding('kill_switch_custodian', 'evidenced', 'custodian is named and holds another key than policy.agent_did (keys compared)');
  }
  if (holder.same) return finding('kill_switch_custodian', 'unevidenced', 'custodian is the agent itself: a kill switch must be held by someone else');
  const why = { first: 'the custodian names no key', second: 'policy.agent_did names no key', both: 'neither names a key' }[holder.unresolved];
  return finding(
    'kill_switch_custodian',
    'evidenced',
    `custodian is named and differs from policy.agent_did, compared as text: ${why} readable offline (a did:web, a name), so one holder under two names is not detected`,
  );
}

function ruleFinding(policy: JsonObject, custodian: string | undefined): JsonObject {
  const rules = policy.rules;
  if (!Array.isArray(rules) || rules.length === 0) return finding('signed_rule', 'missing', 'policy.rules holds no notify or throttle rule');
  const problems: string[] = [];
  for (const [index, entry] of rules.entries()) {
    const problem = signedRuleProblem(entry, custodian);
    if (problem === undefined) return finding('signed_rule', 'evidenced', `policy.rules[${index}] is signed by the custodian`);
    problems.push(`rules[${index}]: ${problem}`);
  }
  // The first few problems say enough, and keep the record small enough for a verify URL.
  const shown = problems.slice(0, 5).join('; ') + (problems.length > 5 ? `; and ${problems.length - 5} more` : '');
  return finding('signed_rule', 'unevidenced', `no rule is a notify or throttle rule signed by the custodian (${shown})`);
}

function signedRuleProblem(entry: JsonValue, custodian: string | undefined): string | undefined {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return 'not an object';
  const { rule, signature } = entry;
  if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) return 'rule is not an object';
  if (rule.type !== 'notify' && rule.type !== 'throttle') return 'rule.type is neither notify nor throttle';
  if (typeof signature !== 'string' || signature === '') return 'unsigned';
  if (!custodian) return 'no custodian to check the signature against';
  const check = verifyBySigner(custodian, canonicalText(rule), signature);
  return check.ok ? undefined : check.reason;
}

function escalationFinding(policy: JsonObject): JsonObject {
  const value = policy.escalation_seconds;
  if (value === undefined || value === null) return finding('escalation_time', 'missing', 'policy.escalation_seconds is not provided');
  return typeof value === 'number' && Number.isInteger(value) && value > 0
    ? finding('escalation_time', 'evidenced', `escalation declared at ${value} seconds`)
    : finding('escalation_time', 'unevidenced', 'policy.escalation_seconds is not a positive integer');
}

/** Every element of the standard, in its order, with its status; nothing is assumed present. */
export function assessReadiness(input: ReadinessInput): JsonObject[] {
  const { policy } = input;
  return [
    didFinding(policy, 'agent_did', 'agent_did'),
    didFinding(policy, 'emergency_contact_did', 'emergency_contact_did'),
    custodianFinding(input.custodian, textAt(policy, 'agent_did')),
    ruleFinding(policy, input.custodian),
    escalationFinding(policy),
  ];
}

/** READY only when every element is evidenced; otherwise READINESS-GAP, with the gaps listed. */
export function attestReadiness(input: ReadinessInput, now: number): JsonObject {
  const evidence = assessReadiness(input);
  const ready = evidence.every((f) => f.status === 'evidenced');
  return readinessRecord({
    target: input.target,
    policy: input.policy,
    evidence,
    custodian: input.custodian ?? '',
    verdict: ready ? 'READY' : 'READINESS-GAP',
    attestsAt: now,
  });
}
