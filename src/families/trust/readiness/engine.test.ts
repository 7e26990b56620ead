import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assessReadiness, attestReadiness, READINESS_RULESET, READINESS_STANDARD } from './engine.ts';
import { canonicalText, type JsonObject } from '../../../signing/rfc8785.ts';
import { edSigner, evmSigner } from '../../../../test/support/keys.ts';

const custodian = edSigner(21);
const rule = { type: 'notify', channel: 'did:web:example.org:oncall', when: 'spend > 100 USD/h' };

function readyPolicy(): JsonObject {
  return {
    agent_did: 'did:web:agents.example.org:eu-1',
    emergency_contact_did: 'did:web:example.org:oncall',
    escalation_seconds: 900,
    rules: [{ rule, signature: custodian.sign(canonicalText(rule)) }],
  };
}

const statusOf = (evidence: JsonObject[], element: string) => evidence.find((f) => f.element === element)?.status;

describe('readiness engine', () => {
  it('READY only when every element of the standard is present and evidenced', () => {
    const record = attestReadiness({ target: 'fleet', custodian: custodian.didKey, policy: readyPolicy() }, 77);
    expect(record.verdict).toBe('READY');
    expect(record.attestsAt).toBe(77);
    expect((record.evidence as JsonObject[]).map((f) => [f.element, f.status, f.ruleset])).toEqual(
      READINESS_STANDARD.elements.map((e) => [e.element, 'evidenced', READINESS_RULESET]),
    );
  });

  it('marks every finding, evidenced or not, as resting on the caller-supplied snapshot', () => {
    for (const input of [{ target: 'fleet', custodian: custodian.didKey, policy: readyPolicy() }, { target: 'fleet', policy: {} }]) {
      expect((attestReadiness(input, 1).evidence as JsonObject[]).map((f) => f.evidence_source)).toEqual(Array(5).fill('caller-supplied'));
    }
  });

  it('accepts an EVM custodian whose EIP-191 signature covers the canonical rule', async () => {
    const w = evmSigner(0x44);
    const throttle = { type: 'throttle', maxCallsPerMinute: 10 };
    const policy = { ...readyPolicy(), rules: [{ rule: throttle, signature: await w.sign(canonicalText(throttle)) }] };
    expect(attestReadiness({ target: 'fleet', custodian: w.address, policy }, 1).verdict).toBe('READY');
  });

  it('an empty snapshot is a READINESS-GAP listing every element as missing', () => {
    const record = attestReadiness({ target: 'fleet', policy: {} }, 1);
    expect(record.verdict).toBe('READINESS-GAP');
    expect(record.custodian).toBe('');
    expect((record.evidence as JsonObject[]).map((f) => f.status)).toEqual(['missing', 'missing', 'missing', 'missing', 'missing']);
  });

  it.each([
    ['agent_did', { agent_did: undefined }, 'missing'],
    ['agent_did', { agent_did: 'agent-7' }, 'unevidenced'],
    ['emergency_contact_did', { emergency_contact_did: '' }, 'missing'],
    ['emergency_contact_did', { emergency_contact_did: 'mailto:ops@example.org' }, 'unevidenced'],
    ['escalation_time', { escalation_seconds: undefined }, 'missing'],
    ['escalation_time', { escalation_seconds: 0 }, 'unevidenced'],
    ['escalation_time', { escalation_seconds: '15m' }, 'unevidenced'],
    ['signed_rule', { rules: [] }, 'missing'],
    ['signed_rule', { rules: [{ rule }] }, 'unevidenced'],
    ['signed_rule', { rules: [{ rule, signature: edSigner(99).sign(canonicalText(rule)) }] }, 'unevidenced'],
    ['signed_rule', { rules: [{ rule: { ...rule, type: 'log' }, signature: custodian.sign(canonicalText({ ...rule, type: 'log' })) }] }, 'unevidenced'],
    ['signed_rule', { rules: [{ rule: { ...rule, when: 'never' }, signature: custodian.sign(canonicalText(rule)) }] }, 'unevidenced'],
    ['signed_rule', { rules: ['notify me'] }, 'unevidenced'],
  ])('%s gap: %j -> %s', (element, change, status) => {
    const policy = { ...readyPolicy(), ...change } as JsonObject;
    for (const key of Object.keys(change)) if ((change as Record<string, unknown>)[key] === undefined) delete policy[key];
    const record = attestReadiness({ target: 'fleet', custodian: custodian.didKey, policy }, 1);
    expect(record.verdict).toBe('READINESS-GAP');
    expect(statusOf(record.evidence as JsonObject[], element)).toBe(status);
    expect((record.evidence as JsonObject[]).filter((f) => f.status !== 'evidenced')).toHaveLength(1);
  });

  it('a custodian that is the agent itself is not a kill switch', () => {
    const policy = { ...readyPolicy(), agent_did: custodian.didKey };
    const evidence = assessReadiness({ target: 'fleet', custodian: custodian.didKey, policy });
    expect(statusOf(evidence, 'kill_switch_custodian')).toBe('unevidenced');
  });

  it('a missing custodian is listed, and the rules cannot be evidenced without one', () => {
    const evidence = assessReadiness({ target: 'fleet', policy: readyPolicy() });
    expect(statusOf(evidence, 'kill_switch_custodian')).toBe('missing');
    expect(statusOf(evidence, 'signed_rule')).toBe('unevidenced');
  });

  it('is never READY by default: random snapshots are READY only when every finding is evidenced', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('agent_did', 'emergency_contact_did', 'escalation_seconds', 'rules', 'other'), fc.jsonValue()), fc.option(fc.string()), (policy, c) => {
        const record = attestReadiness({ target: 't', custodian: c ?? undefined, policy: policy as JsonObject }, 1);
        const evidence = record.evidence as JsonObject[];
        expect(evidence).toHaveLength(5);
        expect(record.verdict === 'READY').toBe(evidence.every((f) => f.status === 'evidenced'));
        expect(record.verdict).toBe('READINESS-GAP');
      }),
    );
  });

  it('is deterministic apart from attestsAt', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.nat(), fc.nat(), (policy, t1, t2) => {
        const input = { target: 't', custodian: custodian.didKey, policy: policy as JsonObject };
        expect(canonicalText({ ...attestReadiness(input, t1), attestsAt: 0 })).toBe(canonicalText({ ...attestReadiness(input, t2), attestsAt: 0 }));
      }),
    );
  });
});

describe('the custodian is told from the agent by key, however either is spelled', () => {
  const signedBy = (sign: (text: string) => string) => ({ ...readyPolicy(), rules: [{ rule, signature: sign(canonicalText(rule)) }] });

  it.each([
    ['custodian hex, agent its did:key', () => custodian.hex, () => custodian.didKey],
    ['custodian base64, agent its did:key', () => custodian.base64, () => custodian.didKey],
    ['custodian did:key, agent the same did:key', () => custodian.didKey, () => custodian.didKey],
  ])('Ed25519: %s -> READINESS-GAP', (_name, custodianOf, agentOf) => {
    const policy = { ...signedBy((text) => custodian.sign(text)), agent_did: agentOf() };
    const record = attestReadiness({ target: 't', custodian: custodianOf(), policy }, 1);
    expect(record.verdict).toBe('READINESS-GAP');
    const found = (record.evidence as JsonObject[]).find((f) => f.element === 'kill_switch_custodian');
    expect(found).toMatchObject({ status: 'unevidenced', detail: expect.stringContaining("the agent's own key") });
    expect(statusOf(record.evidence as JsonObject[], 'signed_rule')).toBe('evidenced');
  });

  it.each([8453, 1])('EVM: custodian the address of the agent did:pkh (chain %i) -> READINESS-GAP', async (chain) => {
    const w = evmSigner(0x46);
    const throttle = { type: 'throttle', maxCallsPerMinute: 10 };
    const policy = { ...readyPolicy(), agent_did: `did:pkh:eip155:${chain}:${w.lower}`, rules: [{ rule: throttle, signature: await w.sign(canonicalText(throttle)) }] };
    const record = attestReadiness({ target: 't', custodian: w.address, policy }, 1);
    expect(record.verdict).toBe('READINESS-GAP');
    expect(statusOf(record.evidence as JsonObject[], 'kill_switch_custodian')).toBe('unevidenced');
  });

  it('another key is evidenced, and the finding says keys were compared', () => {
    const policy = { ...readyPolicy(), agent_did: edSigner(22).didKey };
    const record = attestReadiness({ target: 't', custodian: custodian.hex, policy }, 1);
    expect(record.verdict).toBe('READY');
    expect((record.evidence as JsonObject[]).find((f) => f.element === 'kill_switch_custodian')?.detail).toContain('keys compared');
  });

  it('a did:web agent names no key: evidenced, and the finding says the two were compared as text', () => {
    const record = attestReadiness({ target: 't', custodian: custodian.didKey, policy: readyPolicy() }, 1);
    expect(record.verdict).toBe('READY');
    expect((record.evidence as JsonObject[]).find((f) => f.element === 'kill_switch_custodian')?.detail).toContain('compared as text: policy.agent_did names no key');
  });
});
