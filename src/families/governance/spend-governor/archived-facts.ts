import { archivedLeaseDecision, leaseIdFor, type ArchivedFacts, type GovernorCommand, type GovernorEvent, type GovernorState, type Lease } from './decider.ts';
import type { ArchivedDecision } from './lease-archive.ts';

// What a command's handler reads before the decider decides a command that names an archived
// decision (decider.ts, lease-archive.ts): which events, and what they hold of it.

/**
 * The revisions of the agent's stream whose events a command's handler reads and brings with it
 * (archivedFactsFrom) before it is decided: those of the archived decision it names, if any.
 */
export function archivedRevisionsFor(command: GovernorCommand, state: GovernorState): number[] {
  const decision = archivedDecisionNamed(command, state);
  if (!decision) return [];
  return decision.settledRevision === undefined ? [decision.revision] : [decision.revision, decision.settledRevision];
}

function archivedDecisionNamed(command: GovernorCommand, state: GovernorState): ArchivedDecision | undefined {
  if (command.kind === 'settle') return archivedLeaseDecision(state, command.lease_id);
  const leaseId = leaseIdFor(command.agent_id, command.paymentId);
  if (state.refusals.has(command.paymentId) || state.leases.has(leaseId)) return undefined;
  return state.archive.find(leaseId);
}

/** What the events at archivedRevisionsFor's revisions hold of the decision; they must be the archived decision's events. */
export function archivedFactsFrom(command: GovernorCommand, state: GovernorState, events: ReadonlyMap<number, GovernorEvent>): ArchivedFacts | undefined {
  const decision = archivedDecisionNamed(command, state);
  if (!decision) return undefined;
  const first = events.get(decision.revision);
  if (decision.refused) {
    if (first?.type !== 'ReserveRefused') throw new Error(`archived refusal at revision ${decision.revision}: the stream holds ${first?.type ?? 'nothing'} there`);
    return { refusal: { paymentId: first.data.paymentId, revision: decision.revision } };
  }
  if (first?.type !== 'LeaseReserved') throw new Error(`archived lease at revision ${decision.revision}: the stream holds ${first?.type ?? 'nothing'} there`);
  const d = first.data;
  const lease: Lease = { lease_id: d.lease_id, amountMicros: BigInt(d.amountMicros), purpose: d.purpose, reservedAt: d.reservedAt, expiresAt: d.expiresAt, paymentId: d.paymentId, revision: decision.revision };
  if (decision.settledRevision === undefined) return { lease };
  const second = events.get(decision.settledRevision);
  if (second?.type !== 'LeaseSettled' || second.data.lease_id !== d.lease_id) throw new Error(`archived settlement at revision ${decision.settledRevision}: the stream holds ${second?.type ?? 'nothing'} of another lease there`);
  const s = second.data;
  return { lease: { ...lease, settlement: { actualMicros: BigInt(s.actualMicros), settledAt: s.settledAt, paymentId: s.paymentId, revision: decision.settledRevision } } };
}
