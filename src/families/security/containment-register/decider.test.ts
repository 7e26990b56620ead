import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../../events/port.ts';
import { deciderSpec, expectSnapshotKeepsState, snapshotFingerprint } from '../../../../test/support/decider-spec.ts';
import { edSigner } from '../../../../test/support/keys.ts';
import { agentProofMessage } from './agent-proof.ts';
import { containmentDecider, isAgentControlled, type RegisterContainment } from './decider.ts';
import type { ContainmentInput } from './engine.ts';
import { parseContainmentEvent, type ContainmentEvent } from './events.ts';
import { containmentRegister } from './operation.ts';

const input = containmentRegister.example as ContainmentInput;
const alice = `0x${'a1'.repeat(20)}`;
const bob = `0x${'b0'.repeat(20)}`;
const register = (payer: string, paymentId: string, now = 100): RegisterContainment => ({ input, payer, paymentId, now });
const spec = deciderSpec(containmentDecider);
const first = spec.given([]).when(register(alice, 'p1')).thenMatches([{ type: 'ContainmentRegistered' }]) as ContainmentEvent[];

describe('the containment decider', () => {
  it('a first registration opens the agent\'s stream, registered by its payer', () => {
    expect(first[0]!.data).toMatchObject({ registrar: alice, paymentId: 'p1', registration: { version: 1, supersedes: null } });
  });

  it('a later registration by the same payer supersedes the earlier one; the history stays', () => {
    const [second] = spec.given(first).when(register(alice, 'p2', 200)).thenMatches([{ type: 'ContainmentRegistered' }]) as ContainmentEvent[];
    expect(second!.data.registration).toMatchObject({ version: 2, supersedes: first[0]!.data.registration_id, registeredAt: 200 });
    expect(spec.given([...first, second!]).state.registrations).toHaveLength(2);
  });

  it('another payer cannot supersede it (403, nothing written), and a resumed call writes nothing twice', () => {
    spec.given(first).when(register(bob, 'p3')).thenRefuses({ status: 403, error: 'forbidden' });
    spec.given(first).when(register(alice, 'p1')).thenNothing();
  });
});

describe('the containment decider: a registration the agent itself signs', () => {
  const agent = edSigner(0x61);
  const carol = `0x${'c0'.repeat(20)}`;
  const squatted: ContainmentInput = { agent_did: agent.didKey, emergency_contact_did: 'did:web:squatter.example', policy: { escalation: 'none' } };
  const own: ContainmentInput = { agent_did: agent.didKey, emergency_contact_did: 'did:web:ops.example.com', policy: { escalation: 'notify, then throttle' } };
  const proven = (declaration: ContainmentInput, signedAt: number, signer = agent): ContainmentInput => ({ ...declaration, agent_proof: { signed_at: signedAt, signature: signer.sign(agentProofMessage(declaration, signedAt)) } });
  const registerAs = (payer: string, paymentId: string, declaration: ContainmentInput, now: number): RegisterContainment => ({ input: declaration, payer, paymentId, now });
  const squatter = spec.given([]).when(registerAs(alice, 's1', squatted, 100)).thenMatches([{ type: 'ContainmentRegistered' }]) as ContainmentEvent[];
  const reclaimed = spec.given(squatter).when(registerAs(bob, 'a1', proven(own, 110), 120)).thenMatches([{ type: 'ContainmentRegistered' }]) as ContainmentEvent[];
  const afterReclaim = [...squatter, ...reclaimed];

  it('its state in a snapshot is the state folded from the start, wherever the snapshot cuts the history: it encodes, weighs and decides the same', () => {
    const third = spec.given(afterReclaim).when(registerAs(bob, 'a2', proven(own, 130), 140)).thenMatches([{ type: 'ContainmentRegistered' }]) as ContainmentEvent[];
    const history = [...afterReclaim, ...third];
    const commands = [registerAs(alice, 's2', squatted, 150), registerAs(carol, 'a3', proven(own, 150), 160), registerAs(bob, 'a4', proven(own, 120), 160), registerAs(bob, 'a1', own, 170)];
    for (let cut = 0; cut <= history.length; cut++) expectSnapshotKeepsState(containmentDecider, history, cut, commands);
    // Pinned: on a change, bump the containment codec's version with the new fingerprint (kernel/state-snapshots.ts).
    expect(snapshotFingerprint(containmentDecider, history)).toBe('containment-chain/v1 ea3da4908d46d9a4fc678d79d59739c984ba3f754ddfe2981535454318f8e004');
  });

  it('an unproven registration of a new agent is recorded as before: NOT-PROVIDED, not agent-controlled', () => {
    expect(squatter[0]!.data.registration).toMatchObject({ agent_proof: { status: 'NOT-PROVIDED' }, agent_controlled: false, version: 1 });
    expect(squatter[0]!.data.agentProofSignedAt).toBeUndefined();
  });

  it("the agent's proof, paid by another payer, supersedes whoever registered first; the stream becomes agent-controlled", () => {
    expect(reclaimed[0]!.data).toMatchObject({ agentProofSignedAt: 110, registrar: bob, registration: { version: 2, supersedes: squatter[0]!.data.registration_id, agent_proof: { status: 'VERIFIED', scheme: 'ed25519', signed_at: 110 }, agent_controlled: true } });
    const state = spec.given(afterReclaim).state;
    expect(isAgentControlled(state)).toBe(true);
    expect(state.agentProofSignedAt).toBe(110);
  });

  it('once agent-controlled, the first payer cannot supersede it unproven, nor with a proof by another key (403)', () => {
    spec.given(afterReclaim).when(registerAs(alice, 's2', squatted, 130)).thenRefuses({ status: 403, error: 'forbidden', message: /only a registration signed by the agent DID/ });
    spec.given(afterReclaim).when(registerAs(alice, 's3', proven(squatted, 130, edSigner(0x62)), 130)).thenRefuses({ status: 403, message: /agent_proof sent does not count: not signed by did:key/ });
  });

  it("a replay of the agent's proof, by any payer, supersedes nothing (403): its signed_at is not later than the last proof's", () => {
    for (const payer of [alice, bob, carol]) spec.given(afterReclaim).when(registerAs(payer, `r-${payer}`, proven(own, 110), 140)).thenRefuses({ status: 403, message: /already recorded: only a registration signed by the agent DID with a later signed_at/ });
    spec.given(afterReclaim).when(registerAs(alice, 'r-earlier', proven(squatted, 105), 140)).thenRefuses({ status: 403 });
  });

  it('a later proof supersedes it, whoever pays; a resumed proven call writes nothing twice', () => {
    const [third] = spec.given(afterReclaim).when(registerAs(carol, 'a2', proven(own, 111), 150)).thenMatches([{ type: 'ContainmentRegistered' }]) as ContainmentEvent[];
    expect(third!.data).toMatchObject({ agentProofSignedAt: 111, registration: { version: 3, agent_controlled: true } });
    spec.given(afterReclaim).when(registerAs(bob, 'a1', proven(own, 110), 120)).thenNothing();
  });

  it('without the agent, a proof that does not verify counts as none: the first payer may supersede, another payer may not', () => {
    const failed = proven(own, 120, edSigner(0x62));
    const [byFirstPayer] = spec.given(squatter).when(registerAs(alice, 's4', failed, 120)).thenMatches([{ type: 'ContainmentRegistered' }]) as ContainmentEvent[];
    expect(byFirstPayer!.data).toMatchObject({ registration: { agent_proof: { status: 'FAILED' }, agent_controlled: false } });
    expect(byFirstPayer!.data.agentProofSignedAt).toBeUndefined();
    spec.given(squatter).when(registerAs(carol, 'c1', failed, 120)).thenRefuses({ status: 403, message: /belong to another payer: only the payer that first registered the agent, or a registration signed by the agent DID/ });
  });

  it('folds the events written before proofs existed (no proof member): the first payer still holds the stream until the agent proves it', () => {
    const written = { registration: { kind: 'containment-registration', ruleset: { id: 'containment-registration', version: '1' }, registration_id: 'ab'.repeat(32), version: 1, supersedes: null }, registration_id: 'ab'.repeat(32), registrar: alice, paymentId: 'old-1' };
    const stored: RecordedEvent = { stream: 'containment-old', type: 'ContainmentRegistered', id: 'e1', data: written, metadata: {}, revision: 0n, position: 0n, recordedAt: 1 };
    const old = [parseContainmentEvent(stored)];
    expect(isAgentControlled(spec.given(old).state)).toBe(false);
    spec.given(old).when(registerAs(bob, 'b1', own, 120)).thenRefuses({ status: 403 });
    const [byAgent] = spec.given(old).when(registerAs(bob, 'b2', proven(own, 120), 120)).thenMatches([{ type: 'ContainmentRegistered' }]) as ContainmentEvent[];
    expect(byAgent!.data.registration).toMatchObject({ version: 2, supersedes: 'ab'.repeat(32), agent_controlled: true });
  });
});
