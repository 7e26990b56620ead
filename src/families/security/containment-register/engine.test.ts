import { describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { assessContainment, ruleMessage, type ContainmentInput, type RegistrationContext } from './engine.ts';
import { containmentRegister } from './operation.ts';

const example = containmentRegister.example as ContainmentInput;
const context: RegistrationContext = { registeredBy: { party: 'payer', address: `0x${'a1'.repeat(20)}` }, version: 1, supersedes: null, now: 1_767_225_600, agentProof: { status: 'NOT-PROVIDED' }, agentControlled: false };

describe('containment readiness', () => {
  it('READY with an agent DID, a contact DID, a policy and a notify rule whose Ed25519 signature verifies', () => {
    const record = assessContainment(example, context);
    expect(record).toMatchObject({ readiness: 'READY', gaps: [], agent_did_check: { syntax: 'valid', method: 'key', resolution: 'decoded offline' }, emergency_contact_did_check: { resolution: 'unresolved (offline)' } });
    expect((record['rules'] as JsonObject[])[0]).toMatchObject({ ...example.rules![0], verification: { status: 'VERIFIED', scheme: 'ed25519' } });
    expect(record['authority']).toMatch(/no kill-switch authority/);
  });

  it('lists every missing element, never defaulting to ready', () => {
    const record = assessContainment({ agent_did: 'not-a-did' }, context);
    expect(record).toMatchObject({ readiness: 'READINESS-GAP' });
    expect((record['gaps'] as JsonObject[]).map((g) => g['element'])).toEqual(['agent_did', 'emergency_contact_did', 'policy', 'rules']);
  });

  it('a rule with a forged signature, or signed for another agent, does not count', () => {
    const forged = { ...example.rules![0]!, signature: 'ab'.repeat(64) };
    expect(assessContainment({ ...example, rules: [forged] }, context)).toMatchObject({ readiness: 'READINESS-GAP', gaps: [{ element: 'rules', reason: 'no notify or throttle rule whose signature verifies' }] });
    // The signature binds the agent: the same rule relayed for another agent fails.
    const other = assessContainment({ ...example, agent_did: 'did:web:other.example' }, context);
    expect((other['rules'] as JsonObject[])[0]).toMatchObject({ verification: { status: 'FAILED' } });
  });

  it('verifies EIP-191 rules by an EVM address or did:pkh', async () => {
    const account = privateKeyToAccount(`0x${'11'.repeat(32)}`);
    const base = { action: 'throttle' as const, trigger: 'error rate above 20%', target: 'tool:payments' };
    const byAddress = { ...base, signer: account.address };
    const byPkh = { ...base, signer: `did:pkh:eip155:8453:${account.address}` };
    const rules = [
      { ...byAddress, signature: await account.signMessage({ message: ruleMessage(example.agent_did, byAddress) }) },
      { ...byPkh, signature: await account.signMessage({ message: ruleMessage(example.agent_did, byPkh) }) },
    ];
    const record = assessContainment({ ...example, rules }, context);
    expect((record['rules'] as JsonObject[]).map((r) => (r['verification'] as JsonObject)['status'])).toEqual(['VERIFIED', 'VERIFIED']);
  });

  it('the registration id is derived from the content, not the stamp', () => {
    expect(assessContainment(example, context)['registration_id']).toBe(assessContainment(example, { ...context, now: 1 })['registration_id']);
  });
});
