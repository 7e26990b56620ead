import { randomUUID } from 'node:crypto';
import type { EventStore } from '../../../events/port.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import { agentChainStream, CONTAINMENT_REGISTERED, type ContainmentRegistered } from './events.ts';

/**
 * An agent's chain as the service wrote it before registrations were scoped to their payer: the
 * agent's stream, opened unproven by `registrar`, its registration of ruleset version 2 (no
 * registered_by). Returns the registration event's data as stored.
 */
export async function writeLegacyContainmentChain(events: EventStore, registrar: string, agentDid: string): Promise<ContainmentRegistered> {
  const content = { kind: 'containment-registration', ruleset: { id: 'containment-registration', version: '2' }, agent_did: agentDid, agent_proof: { status: 'NOT-PROVIDED' }, readiness: 'READINESS-GAP', outcome: 'READINESS-GAP', evidence_source: 'caller-supplied' };
  const registrationId = canonicalSha256(content);
  const registration = { ...content, registration_id: registrationId, version: 1, supersedes: null, agent_controlled: false, registeredAt: 1_767_000_000 };
  const data: ContainmentRegistered = { registration, registration_id: registrationId, registrar: registrar.toLowerCase(), paymentId: 'payment-legacy-0' };
  await events.appendToStream(agentChainStream(agentDid), [{ id: randomUUID(), type: CONTAINMENT_REGISTERED, data }]);
  return data;
}
