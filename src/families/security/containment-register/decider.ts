import { DomainRefusal, type Decider } from '../../../kernel/decider.ts';
import { KeyedHistory } from '../../../kernel/keyed-history.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { assessContainment, type ContainmentInput } from './engine.ts';
import { CONTAINMENT_REGISTERED, type ContainmentEvent } from './events.ts';

/** An agent's containment registrations: who registered first, and every registration in order with the paid call that made it. */
export interface ContainmentState {
  registrar: string | null;
  registrations: KeyedHistory<{ registration: JsonObject; paymentId: string }>;
}

/** The registration the paid call `paymentId` made, if it did. */
export const registrationBy = (state: ContainmentState, paymentId: string): JsonObject | undefined =>
  state.registrations.latestWithKey(paymentId)?.registration;

export interface RegisterContainment {
  input: ContainmentInput;
  payer: string;
  paymentId: string;
  now: number;
}

export const initialContainmentState: ContainmentState = { registrar: null, registrations: KeyedHistory.empty((r) => r.paymentId) };

export function foreignRegistrarRefusal(): DomainRefusal {
  return new DomainRefusal(403, 'forbidden', "this agent's containment registrations belong to another payer: only the payer that first registered the agent may supersede them");
}

/** Anyone may register a new agent; only its first registrar may supersede the registration. */
export function mayRegister(state: Pick<ContainmentState, 'registrar'>, payer: string): boolean {
  return state.registrar === null || state.registrar === payer.toLowerCase();
}

export const containmentDecider: Decider<RegisterContainment, ContainmentEvent, ContainmentState> = {
  initialState: initialContainmentState,
  decide(command, state) {
    if (!mayRegister(state, command.payer)) throw foreignRegistrarRefusal();
    if (registrationBy(state, command.paymentId)) return [];
    const previous = state.registrations.last()?.registration;
    const registration = assessContainment(command.input, { version: state.registrations.length + 1, supersedes: previous ? String(previous['registration_id']) : null, now: command.now });
    return [{ type: CONTAINMENT_REGISTERED, data: { registration, registration_id: String(registration['registration_id']), registrar: command.payer.toLowerCase(), paymentId: command.paymentId } }];
  },
  evolve(state, event) {
    return {
      registrar: state.registrar ?? event.data.registrar,
      registrations: state.registrations.append({ registration: event.data.registration, paymentId: event.data.paymentId }),
    };
  },
};
