import { z } from 'zod';
import { DomainRefusal, type Decider, type RecordPlace } from '../../../kernel/decider.ts';
import { emptyRecordPlaces, recordPlacePieces, withPlacesOf, type RecordPlaces } from '../../../kernel/record-places.ts';
import { headThenList } from '../../../kernel/state-snapshots.ts';
import { checkAgentProof } from './agent-proof.ts';
import { assessContainment, type AgentProofVerdict, type ContainmentInput } from './engine.ts';
import { CONTAINMENT_REGISTERED, type ContainmentEvent } from './events.ts';

/**
 * One chain of an agent's containment registrations (the agent's own, or one payer's: see
 * registration-chain.ts): who registered first, the signed_at of the latest registration the
 * agent itself proved (null while it has proved none), the id of the latest registration (the
 * next one supersedes it), and every registration in order with the paid call that made it and
 * the revision of its event, where its record is: the records are read back when a call answers
 * with one (operation.ts), not held in memory.
 */
export interface ContainmentState {
  registrar: string | null;
  agentProofSignedAt: number | null;
  latestRegistrationId: string | null;
  registrations: RecordPlaces;
}


/** Where the registration the paid call `paymentId` made is, if it made one. */
export const registrationBy = (state: ContainmentState, paymentId: string): RecordPlace | undefined => state.registrations.latestWithKey(paymentId);

/** Once the agent has proved a registration, only the agent (a later proof) may supersede it. */
export const isAgentControlled = (state: Pick<ContainmentState, 'agentProofSignedAt'>): boolean => state.agentProofSignedAt !== null;

export interface RegisterContainment {
  input: ContainmentInput;
  payer: string;
  paymentId: string;
  now: number;
}

export const initialContainmentState: ContainmentState = { registrar: null, agentProofSignedAt: null, latestRegistrationId: null, registrations: emptyRecordPlaces() };

/** Why a proof that was sent did not count, for a refusal that would have accepted a proof. */
function unprovenBecause(proof: AgentProofVerdict): string {
  return 'reason' in proof ? `; the agent_proof sent does not count: ${proof.reason}` : '';
}

/**
 * Who may extend a chain. A registration the agent proved (its own signature, fresh) supersedes
 * whoever registered before, if its signed_at is later than the last proof's, so a replayed
 * proof supersedes nothing. Without such a proof, only the payer that opened the chain may
 * extend it, and only while the agent has proved nothing in it. Since registrations are scoped
 * to their declarer (registration-chain.ts) a call only meets a chain it may extend, but for a
 * replayed proof, or a chain another process changed after the choice; kept here so that no
 * stream is ever extended against these rules. Decided by the stored stream: 403 after the
 * payment is verified, before it is settled, nothing charged.
 */
export function supersessionRefusal(state: Pick<ContainmentState, 'registrar' | 'agentProofSignedAt'>, payer: string, proof: AgentProofVerdict): DomainRefusal | undefined {
  if (proof.status === 'VERIFIED') {
    if (state.agentProofSignedAt === null || proof.signed_at > state.agentProofSignedAt) return undefined;
    return new DomainRefusal(
      403,
      'forbidden',
      `a registration the agent signed at signed_at ${state.agentProofSignedAt} is already recorded: only a registration signed by the agent DID with a later signed_at may supersede it (a proof is accepted once); sign the registration again`,
    );
  }
  if (state.registrar === null) return undefined;
  if (isAgentControlled(state))
    return new DomainRefusal(403, 'forbidden', `this agent's containment registration is signed by the agent itself: only a registration signed by the agent DID (agent_proof, with a signed_at after ${state.agentProofSignedAt}) may supersede it${unprovenBecause(proof)}`);
  if (state.registrar !== payer.toLowerCase())
    return new DomainRefusal(403, 'forbidden', `this agent's containment registrations belong to another payer: only the payer that first registered the agent, or a registration signed by the agent DID (agent_proof), may supersede them${unprovenBecause(proof)}`);
  return undefined;
}

export const containmentDecider: Decider<RegisterContainment, ContainmentEvent, ContainmentState> = {
  initialState: initialContainmentState,
  decide(command, state) {
    // A resumed call finds its own registration, whatever was decided after it.
    if (registrationBy(state, command.paymentId)) return [];
    const agentProof = checkAgentProof(command.input, command.now);
    const refusal = supersessionRefusal(state, command.payer, agentProof);
    if (refusal) throw refusal;
    const proved = agentProof.status === 'VERIFIED' ? { agentProofSignedAt: agentProof.signed_at } : {};
    const registration = assessContainment(command.input, {
      registeredBy: agentProof.status === 'VERIFIED' ? { party: 'agent', did: command.input.agent_did } : { party: 'payer', address: command.payer.toLowerCase() },
      version: state.registrations.length + 1,
      supersedes: state.latestRegistrationId,
      now: command.now,
      agentProof,
      agentControlled: isAgentControlled(state) || agentProof.status === 'VERIFIED',
    });
    return [{ type: CONTAINMENT_REGISTERED, data: { registration, registration_id: String(registration['registration_id']), registrar: command.payer.toLowerCase(), paymentId: command.paymentId, ...proved } }];
  },
  // Every event of a chain is a registration: its revision is its place in the list.
  evolve(state, event) {
    return {
      registrar: state.registrar ?? event.data.registrar,
      agentProofSignedAt: event.data.agentProofSignedAt ?? state.agentProofSignedAt,
      latestRegistrationId: event.data.registration_id,
      registrations: state.registrations.append({ paymentId: event.data.paymentId, revision: state.registrations.length }),
    };
  },
  // A place is a payment's id (about 120 characters) and a revision.
  keptSize: (state) => 200 + state.registrations.keptChars(160),
  snapshot: {
    kind: 'containment-chain',
    version: 1,
    *encode({ registrations, ...chain }) {
      yield ['chain', chain];
      yield* recordPlacePieces(registrations);
    },
    decoder: () => headThenList('containment', (piece) => chainPiece.parse(piece)[1], emptyRecordPlaces(), withPlacesOf, (chain, registrations) => ({ ...chain, registrations })),
  },
};

const chainPiece = z.tuple([z.literal('chain'), z.object({ registrar: z.string().nullable(), agentProofSignedAt: z.number().nullable(), latestRegistrationId: z.string().nullable() }).strict()]);
