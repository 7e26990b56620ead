import { randomUUID } from 'node:crypto';
import type { EventStore } from '../../../events/port.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { parseAmount } from '../../../kernel/decimal-amount.ts';
import { legacyAgentStreamName } from '../events.ts';
import { governorDecider, initialGovernorState, LEGACY_GOVERNOR_RULESET, type GovernorEvent } from './decider.ts';

/** A record as ruleset 1 signed it: no owner. */
function asLegacyRecord(record: JsonObject): JsonObject {
  const { owner: _owner, ...unowned } = record;
  return { ...unowned, ruleset: { ...LEGACY_GOVERNOR_RULESET } };
}

function asLegacyEvent(event: GovernorEvent): GovernorEvent {
  switch (event.type) {
    case 'BudgetOpened':
      return event;
    case 'LeaseReserved':
      return { type: event.type, data: { ...event.data, record: asLegacyRecord(event.data.record) } };
    case 'ReserveRefused':
      return { type: event.type, data: { ...event.data, record: asLegacyRecord(event.data.record) } };
    case 'LeaseSettled':
      return { type: event.type, data: { ...event.data, record: asLegacyRecord(event.data.record) } };
  }
}

/**
 * An agent as the service wrote it before agents were scoped to their payer: the legacy stream
 * of the agent id, its budget opened by `owner` with one lease of `leaseAmount`, its records of
 * ruleset 1. Returns the lease record as it was signed.
 */
export async function writeLegacyAgent(
  store: EventStore,
  owner: string,
  agentId: string,
  terms: { cap: string; leaseAmount: string; now: number },
): Promise<JsonObject> {
  const reserve = {
    kind: 'reserve' as const,
    agent_id: agentId,
    payer: owner.toLowerCase(),
    amountMicros: parseAmount(terms.leaseAmount)!,
    purpose: 'before agents were per payer',
    ttlSeconds: 3600,
    budget: { capMicros: parseAmount(terms.cap)!, periodSeconds: 86_400 },
    now: terms.now,
    paymentId: `payment-legacy-${agentId}`,
  };
  const events = governorDecider.decide(reserve, initialGovernorState).map(asLegacyEvent);
  await store.appendToStream(legacyAgentStreamName(agentId), events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data })));
  const lease = events.find((event) => event.type === 'LeaseReserved');
  if (lease?.type !== 'LeaseReserved') throw new Error('the legacy reserve made no lease');
  return lease.data.record;
}
