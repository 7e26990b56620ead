import { describe, expect, it } from 'vitest';
import { edSigner, evmSigner } from '../../../../test/support/keys.ts';
import { agentProofMessage, checkAgentProof, staleAgentProofRefusal } from './agent-proof.ts';
import type { ContainmentInput } from './engine.ts';
import { containmentInput } from './operation.ts';

const now = 1_767_225_600;
const agent = edSigner(0x41);
const declaration: ContainmentInput = {
  agent_did: agent.didKey,
  emergency_contact_did: 'did:web:ops.example.com',
  policy: { escalation: 'notify, then throttle to read-only' },
  rules: [{ action: 'notify', trigger: 'spend above 50 USD in 24 h', target: 'did:web:ops.example.com', signer: agent.didKey, signature: agent.sign('any') }],
};
const signedBy = (signer: { sign(message: string): string }, input: ContainmentInput, signedAt = now): ContainmentInput => ({ ...input, agent_proof: { signed_at: signedAt, signature: signer.sign(agentProofMessage(input, signedAt)) } });

describe("the agent's proof over its containment registration", () => {
  it('is the RFC 8785 text of the whole declaration, with null and [] for what was not sent', () => {
    expect(agentProofMessage({ agent_did: 'did:key:z6Mkexample' }, 1_767_225_600)).toBe(
      '{"agent_did":"did:key:z6Mkexample","emergency_contact_did":null,"policy":null,"purpose":"containment-register","rules":[],"signed_at":1767225600}',
    );
  });

  it('covers every member a caller may send but the proof itself', () => {
    const members = Object.keys(containmentInput.shape).filter((name) => name !== 'agent_proof');
    expect(Object.keys(JSON.parse(agentProofMessage(declaration, now)) as object)).toEqual(expect.arrayContaining(members));
  });

  it('VERIFIED when the agent did:key signed it (Ed25519), or the did:pkh account (EIP-191)', async () => {
    expect(checkAgentProof(signedBy(agent, declaration), now)).toMatchObject({ status: 'VERIFIED', scheme: 'ed25519', signed_at: now });
    const account = evmSigner(0x42);
    const pkhDeclaration = { ...declaration, agent_did: `did:pkh:eip155:8453:${account.lower}` };
    const signature = await account.sign(agentProofMessage(pkhDeclaration, now));
    expect(checkAgentProof({ ...pkhDeclaration, agent_proof: { signed_at: now, signature } }, now)).toMatchObject({ status: 'VERIFIED', scheme: 'eip191' });
  });

  it('FAILED when another key signed it, or when anything in the declaration changed after signing', () => {
    expect(checkAgentProof(signedBy(edSigner(0x43), declaration), now)).toMatchObject({ status: 'FAILED', scheme: 'ed25519', reason: expect.stringMatching(/not signed by did:key:.* over this registration/) });
    const proven = signedBy(agent, declaration);
    const changed: ContainmentInput[] = [
      { ...proven, emergency_contact_did: 'did:web:squatter.example' },
      { ...proven, policy: { escalation: 'none' } },
      { ...proven, policy: undefined },
      { ...proven, rules: [] },
      { ...proven, agent_proof: { ...proven.agent_proof!, signed_at: now + 1 } },
    ];
    for (const input of changed) expect(checkAgentProof(input, now)).toMatchObject({ status: 'FAILED' });
  });

  it('NOT-PROVIDED without a proof; UNRESOLVED (offline) for a did:web agent, whose key the service cannot fetch', () => {
    expect(checkAgentProof(declaration, now)).toEqual({ status: 'NOT-PROVIDED' });
    const web = { ...declaration, agent_did: 'did:web:agent.example.com', agent_proof: { signed_at: now, signature: 'ab'.repeat(64) } };
    expect(checkAgentProof(web, now)).toMatchObject({ status: 'UNRESOLVED', reason: expect.stringContaining('unresolved (offline)') });
  });

  it('counts only within 300 s of the clock: further is refused before the quote (422 naming agent_proof.signed_at) and FAILED if met after', () => {
    for (const signedAt of [now - 300, now + 300]) {
      expect(staleAgentProofRefusal(signedBy(agent, declaration, signedAt), now)).toBeUndefined();
      expect(checkAgentProof(signedBy(agent, declaration, signedAt), now)).toMatchObject({ status: 'VERIFIED' });
    }
    for (const signedAt of [now - 301, now + 301]) {
      expect(staleAgentProofRefusal(signedBy(agent, declaration, signedAt), now)).toMatchObject({ status: 422, outcome: 'INVALID-INPUT', issues: [{ path: 'agent_proof.signed_at' }] });
      expect(checkAgentProof(signedBy(agent, declaration, signedAt), now)).toMatchObject({ status: 'FAILED' });
    }
    expect(staleAgentProofRefusal(declaration, now)).toBeUndefined();
  });
});
