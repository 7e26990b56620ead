import type { EventStore } from '../../../events/port.ts';
import { eventAt, loadState } from '../../../kernel/decider.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { containmentDecider, isAgentControlled, registrationBy, type ContainmentState } from './decider.ts';
import type { AgentProofVerdict } from './engine.ts';
import { agentChainStream, parseContainmentEvent, payerChainStream } from './events.ts';

export interface RegistrationChain {
  /** The stream this registration is decided on and appended to. */
  stream: string;
  state: ContainmentState;
}

const load = async (store: EventStore, stream: string): Promise<RegistrationChain> => ({ stream, state: (await loadState(store, stream, containmentDecider, parseContainmentEvent)).state });

/**
 * Where a registration goes. One the agent signed extends the agent's own chain, whoever pays.
 * Any other is the payer's declaration and extends the payer's own chain of that agent, so that
 * no payer can take an agent's name from another by registering it first: a did:web agent,
 * which cannot prove itself offline, would otherwise belong to whoever paid first, for good.
 * The one exception keeps the chains made before this rule going: a payer that opened the
 * agent's chain unproven, and has no chain of its own yet, extends it while the agent has proved
 * nothing there. No new payer ever enters the agent's chain unproven, so the choice is the same
 * on every call of a payer, and no answer to one payer depends on another payer's registrations.
 */
export async function registrationChain(store: EventStore, agentDid: string, payer: string, proof: AgentProofVerdict): Promise<RegistrationChain> {
  if (proof.status === 'VERIFIED') return load(store, agentChainStream(agentDid));
  const own = await load(store, payerChainStream(payer, agentDid));
  if (own.state.registrar !== null) return own;
  const agents = await load(store, agentChainStream(agentDid));
  const opened = agents.state.registrar === payer.toLowerCase() && !isAgentControlled(agents.state);
  return opened ? agents : own;
}

/**
 * The registration the paid call `paymentId` made in the chain, as recorded: read back from the
 * stream at the revision its state keeps (decider.ts keeps where, not what).
 */
export async function recordedRegistration(store: EventStore, stream: string, state: ContainmentState, paymentId: string): Promise<JsonObject> {
  const place = registrationBy(state, paymentId);
  if (!place) throw new Error(`containment registration by ${paymentId} left no event`);
  return (await eventAt(store, stream, place.revision, parseContainmentEvent)).data.registration;
}
