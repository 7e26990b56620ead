import type { EventStore, RecordedEvent } from '../../../events/port.ts';
import { loadState } from '../../../kernel/decider.ts';
import { agentStreamName, budgetOpenedSchema, GOVERNANCE_EVENT_TYPES, legacyAgentStreamName, parseGovernorEvent, type GovernorEvent } from '../events.ts';
import { governorDecider, type GovernorState } from './decider.ts';

/** Stored event -> the engine's event, through the zod schemas of the event catalogue. */
export const parseAgentEvent = (event: Pick<RecordedEvent, 'type' | 'data'>): GovernorEvent => parseGovernorEvent(event);

export interface PayersAgent {
  /** The stream the payer's agent is read from and appended to. */
  stream: string;
  state: GovernorState;
}

/**
 * The payer's agent of this id: its own stream, unless it has none yet and the agent this payer
 * opened before agents were scoped to their payer is in the legacy stream; then that one, read
 * and extended in place so that its budget, leases and spend go on. Once the payer's own stream
 * has an event the legacy one is not looked at, and no new legacy stream is ever opened, so the
 * choice never changes for a payer. Another payer's legacy agent is never chosen: for every other
 * payer it is as if absent.
 */
export async function payersAgent(store: EventStore, payer: string, agentId: string): Promise<PayersAgent> {
  const own = agentStreamName(payer, agentId);
  const ownLoaded = await loadState(store, own, governorDecider, parseAgentEvent);
  if (ownLoaded.revision !== undefined) return { stream: own, state: ownLoaded.state };
  const legacy = legacyAgentStreamName(agentId);
  if (!(await isLegacyAgentOf(store, legacy, payer))) return { stream: own, state: ownLoaded.state };
  return { stream: legacy, state: (await loadState(store, legacy, governorDecider, parseAgentEvent)).state };
}

/**
 * Whether the legacy stream opens with this payer's budget. Only its first event is read, so
 * another payer's budget and leases are never loaded.
 */
async function isLegacyAgentOf(store: EventStore, legacy: string, payer: string): Promise<boolean> {
  const [first] = await store.readStream(legacy, { maxCount: 1 });
  if (first?.type !== GOVERNANCE_EVENT_TYPES.budgetOpened) return false;
  const opened = budgetOpenedSchema.safeParse(first.data);
  return opened.success && opened.data.owner === payer.toLowerCase();
}

/** The state of the payer's agent (initial when the payer has none). */
export async function readGovernorState(store: EventStore, payer: string, agentId: string): Promise<GovernorState> {
  return (await payersAgent(store, payer, agentId)).state;
}
