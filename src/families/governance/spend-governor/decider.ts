import { DomainRefusal, type Decider } from '../../../kernel/decider.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import { formatAmount } from '../../../kernel/decimal-amount.ts';
import { HashTrie } from '../../../kernel/hash-trie.ts';
import { OrderedSumTree } from '../../../kernel/ordered-sum-tree.ts';
import { archiveKeyOf, LeaseArchive, leaseHashStart, MAX_ARCHIVED_REVISION, type ArchiveEntry, type ArchivedDecision } from './lease-archive.ts';
import { governorStateCodec } from './state-snapshot.ts';
import type { Budget, GovernorState, Lease, WindowTally } from './state.ts';

export type { Budget, GovernorState, Lease, WindowTally } from './state.ts';

/**
 * The spend governor: one aggregate per payer's agent, folded from its stream. Pure: every clock
 * reading arrives as `now` inside the command, so a lease past its `expiresAt` counts as
 * released in the same way in decide, in the state route and in a replay.
 *
 * Ruleset 2 scopes agents to their payer and adds `owner`, the payer whose agent it is, to every
 * lease and settlement record. Records of ruleset 1, signed when the first payer of an agent id
 * owned it, have no owner; they keep their bytes and are returned as signed.
 */
export const GOVERNOR_RULESET = { id: 'spend-governor', version: '2' } as const;
export const LEGACY_GOVERNOR_RULESET = { id: 'spend-governor', version: '1' } as const;
/** The version string of the published rules document (GET /v1/governance/standard). */
export const GOVERNOR_RULES_VERSION = `${GOVERNOR_RULESET.id}/v${GOVERNOR_RULESET.version}`;

/** The events of an agent stream, with amounts as the integer strings they are stored as. */
export type GovernorEvent =
  | { type: 'BudgetOpened'; data: { agent_id: string; owner: string; capMicros: string; periodSeconds: number; openedAt: number; paymentId: string } }
  | { type: 'LeaseReserved'; data: { lease_id: string; amountMicros: string; purpose: string; reservedAt: number; expiresAt: number; paymentId: string; record: JsonObject } }
  | { type: 'ReserveRefused'; data: { paymentId: string; record: JsonObject } }
  | { type: 'LeaseSettled'; data: { lease_id: string; actualMicros: string; settledAt: number; paymentId: string; record: JsonObject } };

/**
 * What the agent's stream holds of an archived decision a command names (its lease, or the
 * refusal of its payment), read back by the command's handler (archivedRevisionsFor, then
 * archivedFactsFrom) and checked by the decider against the archive's entry.
 */
export type ArchivedFacts = { lease: Lease } | { refusal: { paymentId: string; revision: number } };

export interface ReserveCommand {
  kind: 'reserve';
  agent_id: string;
  payer: string;
  amountMicros: bigint;
  purpose: string;
  ttlSeconds: number;
  budget?: { capMicros: bigint; periodSeconds: number };
  now: number;
  paymentId: string;
  archived?: ArchivedFacts;
}

export interface SettleCommand {
  kind: 'settle';
  agent_id: string;
  lease_id: string;
  payer: string;
  actualMicros: bigint;
  now: number;
  paymentId: string;
  archived?: ArchivedFacts;
}

export type GovernorCommand = ReserveCommand | SettleCommand;


/**
 * The agent of another payer handed to a command of this payer. Every agent is its payer's alone
 * (agent-stream.ts picks the stream from the payer), so this is a fault of the service, never an
 * answer to a caller: nothing is decided on that agent.
 */
export class ForeignAgentBudget extends Error {
  constructor(owner: string, payer: string) {
    super(`governed agent of ${owner} handed to a call of ${payer}`);
    this.name = 'ForeignAgentBudget';
  }
}

function assertOwnAgent(state: GovernorState, payer: string): void {
  if (state.budget && state.budget.owner !== payer) throw new ForeignAgentBudget(state.budget.owner, payer);
}

export const initialGovernorState: GovernorState = {
  leases: HashTrie.empty(),
  refusals: HashTrie.empty(),
  windows: HashTrie.empty(),
  archive: LeaseArchive.empty(),
  lastArchivingRevision: 0,
  events: 0,
  keptChars: 0,
};

/**
 * How long a decision nothing can change any more (a settled lease, a lease expired unsettled,
 * a refused reserve) stays whole in the state before evolve archives it. A day of the agent's
 * own time, so that a state holds about a day of leases, whatever the agent's age; and long
 * enough that no clock of the service is that far behind the stream it writes to (a window over
 * a day before the latest event is dropped: a command dated in it would find it empty).
 */
export const ARCHIVE_AFTER_SECONDS = 86_400;
/** What an archived decision weighs in keptChars: its 16 bytes. */
const ARCHIVED_CHARS = 16;

const EMPTY_WINDOW: WindowTally = { spentMicros: 0n, open: OrderedSumTree.empty() };

/** Agent ids name streams: a closed alphabet keeps every stream name unambiguous. */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Deterministic per payment, and carries its agent so that settle finds the stream. */
export function leaseIdFor(agentId: string, paymentId: string): string {
  return `${agentId}:${sha256Hex(`lease\u0000${paymentId}`).slice(0, 24)}`;
}

/** The archive key of the decision a payment's reserve made (its lease's or its refusal's): the lease id's hash, the same for any agent. */
const decisionKeyOf = (paymentId: string): string => archiveKeyOf(leaseIdFor('', paymentId));

/** The agent a lease id belongs to, or undefined when the id is not one of ours. */
export function agentOfLease(leaseId: string): string | undefined {
  const at = leaseHashStart(leaseId);
  if (at === undefined) return undefined;
  const agent = leaseId.slice(0, at - 1);
  return AGENT_ID_PATTERN.test(agent) ? agent : undefined;
}

/**
 * Budget periods are rolling windows of `periodSeconds` counted from the budget's opening:
 * [openedAt + k*period, openedAt + (k+1)*period). A lease counts against the window it was
 * reserved in, while open and once settled; a new window starts from zero.
 */
export function windowStartOf(budget: Budget, at: number): number {
  const k = Math.floor((at - budget.openedAt) / budget.periodSeconds);
  return budget.openedAt + Math.max(0, k) * budget.periodSeconds;
}

export const isReleased = (lease: Lease, now: number): boolean => lease.settlement === undefined && now >= lease.expiresAt;

export interface Usage {
  windowStart: number;
  windowEnd: number;
  reservedMicros: bigint;
  spentMicros: bigint;
  availableMicros: bigint;
}

const windowKey = (windowStart: number): string => String(windowStart);

function tallyAt(state: GovernorState, budget: Budget, now: number): WindowTally {
  return state.windows.get(windowKey(windowStartOf(budget, now))) ?? EMPTY_WINDOW;
}

/** The window of `now`: its leases settled and its leases reserved, open and not expired. */
export function usageAt(state: GovernorState, now: number): Usage | undefined {
  const budget = state.budget;
  if (!budget) return undefined;
  const windowStart = windowStartOf(budget, now);
  const tally = tallyAt(state, budget, now);
  // An open lease is released once now >= expiresAt (isReleased): those expiring after now count.
  const reservedMicros = tally.open.sumAbove(now);
  return {
    windowStart,
    windowEnd: windowStart + budget.periodSeconds,
    reservedMicros,
    spentMicros: tally.spentMicros,
    availableMicros: budget.capMicros - reservedMicros - tally.spentMicros,
  };
}

/** The leases of the window of `now` still open and not expired. */
export function openLeasesAt(state: GovernorState, now: number): Lease[] {
  if (!state.budget) return [];
  return tallyAt(state, state.budget, now).open.valuesAbove(now);
}

function withReserved(state: GovernorState, lease: Lease): GovernorState {
  const leases = state.leases.set(lease.lease_id, lease);
  if (!state.budget) return { ...state, leases };
  const key = windowKey(windowStartOf(state.budget, lease.reservedAt));
  const tally = state.windows.get(key) ?? EMPTY_WINDOW;
  const grown: WindowTally = { spentMicros: tally.spentMicros, open: tally.open.insert(lease.expiresAt, lease.lease_id, lease, lease.amountMicros) };
  return { ...state, leases, windows: state.windows.set(key, grown) };
}

function withSettled(state: GovernorState, lease: Lease, settlement: NonNullable<Lease['settlement']>): GovernorState {
  const leases = state.leases.set(lease.lease_id, { ...lease, settlement });
  if (!state.budget) return { ...state, leases };
  const key = windowKey(windowStartOf(state.budget, lease.reservedAt));
  const tally = state.windows.get(key) ?? EMPTY_WINDOW;
  const settled: WindowTally = { spentMicros: tally.spentMicros + settlement.actualMicros, open: tally.open.delete(lease.expiresAt, lease.lease_id) };
  return { ...state, leases, windows: state.windows.set(key, settled) };
}

/**
 * Decide writes each of these once (a budget opens once, a lease is reserved and settled once);
 * a repeat in a stream is ignored, first one wins, so the windows' figures stay exact. Every
 * event counts (`events`): the state says at which revision each signed record lies, and keeps
 * no record itself (an agent of 57,000 leases held 49 MiB of heap with them, 23 without).
 */
export const evolveGovernor = governorEvolve(ARCHIVE_AFTER_SECONDS);

/** evolve, archiving after `archiveAfterSeconds` (ARCHIVE_AFTER_SECONDS; the tests' model never archives). */
export function governorEvolve(archiveAfterSeconds: number): (state: GovernorState, event: GovernorEvent) => GovernorState {
  return (state, event) => {
    const next = applied(state, event, archiveAfterSeconds);
    const counted = { ...next, events: state.events + 1, keptChars: state.keptChars + (next === state ? 0 : keptCharsOf(event)) };
    return archivingDue(counted, eventTimeOf(event), archiveAfterSeconds);
  };
}

function eventTimeOf(event: GovernorEvent): number | undefined {
  switch (event.type) {
    case 'BudgetOpened':
      return event.data.openedAt;
    case 'LeaseReserved':
      return event.data.reservedAt;
    case 'LeaseSettled':
      return event.data.settledAt;
    case 'ReserveRefused':
      return typeof event.data.record.requestedAt === 'number' ? event.data.record.requestedAt : undefined;
  }
}

/**
 * Archives, at most once a day of the agent's time, what was decided for good over a day before
 * the event at `at`. One pass over what the state holds whole: about two days of leases.
 */
function archivingDue(state: GovernorState, at: number | undefined, archiveAfterSeconds: number): GovernorState {
  if (at === undefined || !state.budget) return state;
  if (state.archiveDueAt === undefined) return { ...state, archiveDueAt: at + archiveAfterSeconds };
  if (at < state.archiveDueAt) return state;
  return { ...archivedBefore(state, at - archiveAfterSeconds), archiveDueAt: at + archiveAfterSeconds, lastArchivingRevision: state.events };
}

/**
 * The state with its leases reserved by `cutoff` and settled, or expired by it, archived; its
 * windows over by `cutoff` dropped; and its refusals older than the last archiving archived.
 */
function archivedBefore(state: GovernorState, cutoff: number): GovernorState {
  const budget = state.budget!;
  const entries: ArchiveEntry[] = [];
  const keys = new Set<string>();
  /**
   * A key archived already (another decision sharing 8 bytes of hash: about one agent in 10^7 at
   * a million leases), or revisions an entry cannot hold, leave the decision whole in the state.
   */
  const archivable = (key: string, lastRevision: number): boolean => {
    if (keys.has(key) || lastRevision > MAX_ARCHIVED_REVISION || state.archive.findKey(key) !== undefined) return false;
    keys.add(key);
    return true;
  };
  let { leases, refusals, windows, keptChars } = state;
  for (const [key] of state.windows.entries()) if (Number(key) + budget.periodSeconds <= cutoff) windows = windows.delete(key);
  for (const lease of state.leases.values()) {
    const settled = lease.settlement;
    if (lease.reservedAt > cutoff || (!settled && lease.expiresAt > cutoff)) continue;
    const key = archiveKeyOf(lease.lease_id);
    if (!archivable(key, Math.max(lease.revision, settled?.revision ?? 0))) continue;
    entries.push({ key, decision: { revision: lease.revision, refused: false, ...(settled ? { settledRevision: settled.revision } : {}) } });
    leases = leases.delete(lease.lease_id);
    keptChars -= keptCharsOfLease(lease);
    if (!settled) windows = withoutOpenLease(windows, budget, lease);
  }
  for (const [paymentId, revision] of state.refusals.entries()) {
    if (revision >= state.lastArchivingRevision) continue;
    const key = decisionKeyOf(paymentId);
    if (!archivable(key, revision)) continue;
    entries.push({ key, decision: { revision, refused: true } });
    refusals = refusals.delete(paymentId);
    keptChars -= REFUSAL_CHARS + paymentId.length;
  }
  if (entries.length === 0 && windows === state.windows) return state;
  return { ...state, leases, refusals, windows, archive: state.archive.with(entries), keptChars: keptChars + entries.length * ARCHIVED_CHARS };
}

/**
 * The cutoff of the last archiving: every lease archived was reserved by then, so a lease
 * reserved after it is looked up in the archive no more (a lookup at every lease folded cost a
 * fifth of a fold).
 */
function archivedUpTo(state: GovernorState, archiveAfterSeconds: number): number {
  return state.archiveDueAt === undefined ? -Infinity : state.archiveDueAt - 2 * archiveAfterSeconds;
}

function withoutOpenLease(windows: HashTrie<WindowTally>, budget: Budget, lease: Lease): HashTrie<WindowTally> {
  const key = windowKey(windowStartOf(budget, lease.reservedAt));
  const tally = windows.get(key);
  return tally ? windows.set(key, { ...tally, open: tally.open.delete(lease.expiresAt, lease.lease_id) }) : windows;
}

function applied(state: GovernorState, event: GovernorEvent, archiveAfterSeconds: number): GovernorState {
  const revision = state.events;
  switch (event.type) {
    case 'BudgetOpened': {
      const d = event.data;
      if (state.budget) return state;
      return { ...state, agent_id: d.agent_id, budget: { owner: d.owner, capMicros: BigInt(d.capMicros), periodSeconds: d.periodSeconds, openedAt: d.openedAt } };
    }
    case 'LeaseReserved': {
      const d = event.data;
      if (state.leases.has(d.lease_id) || (d.reservedAt <= archivedUpTo(state, archiveAfterSeconds) && state.archive.find(d.lease_id))) return state;
      return withReserved(state, { lease_id: d.lease_id, amountMicros: BigInt(d.amountMicros), purpose: d.purpose, reservedAt: d.reservedAt, expiresAt: d.expiresAt, paymentId: d.paymentId, revision });
    }
    case 'ReserveRefused': {
      const { paymentId } = event.data;
      const seen = state.refusals.has(paymentId) || state.archive.findKey(decisionKeyOf(paymentId)) !== undefined;
      return seen ? state : { ...state, refusals: state.refusals.set(paymentId, revision) };
    }
    case 'LeaseSettled': {
      const d = event.data;
      const lease = state.leases.get(d.lease_id);
      if (!lease || lease.settlement) return state;
      return withSettled(state, lease, { actualMicros: BigInt(d.actualMicros), settledAt: d.settledAt, paymentId: d.paymentId, revision });
    }
  }
}

/**
 * About what the state keeps of an event, in characters of JSON: a budget, a lease's figures,
 * ids and purpose, a settlement's, a refusal's payment; never the signed record.
 */
export function keptCharsOf(event: GovernorEvent): number {
  switch (event.type) {
    case 'BudgetOpened':
      return 96 + event.data.agent_id.length + event.data.owner.length + event.data.paymentId.length;
    case 'LeaseReserved':
      return LEASE_CHARS + event.data.lease_id.length + event.data.purpose.length + event.data.paymentId.length;
    case 'ReserveRefused':
      return REFUSAL_CHARS + event.data.paymentId.length;
    case 'LeaseSettled':
      return SETTLEMENT_CHARS + event.data.paymentId.length;
  }
}

const LEASE_CHARS = 96;
const SETTLEMENT_CHARS = 48;
const REFUSAL_CHARS = 32;

/** keptCharsOf its LeaseReserved and its LeaseSettled: what archiving a lease takes off. */
function keptCharsOfLease(lease: Lease): number {
  const settled = lease.settlement ? SETTLEMENT_CHARS + lease.settlement.paymentId.length : 0;
  return LEASE_CHARS + lease.lease_id.length + lease.purpose.length + lease.paymentId.length + settled;
}

/**
 * A command naming an archived decision reached the decider without what the stream holds of it
 * (ArchivedFacts): a fault of its handler, never an answer.
 */
export class ArchivedFactsNeeded extends Error {
  constructor(leaseId: string) {
    super(`the archived decision of ${leaseId} was not read back before deciding`);
    this.name = 'ArchivedFactsNeeded';
  }
}

/** The facts a command brings, checked against the archive's entry: read at another revision, they are a fault. */
function checkedFacts(leaseId: string, decision: ArchivedDecision, facts: ArchivedFacts | undefined): ArchivedFacts {
  if (!facts) throw new ArchivedFactsNeeded(leaseId);
  const matches =
    'refusal' in facts
      ? decision.refused && facts.refusal.revision === decision.revision
      : !decision.refused && facts.lease.revision === decision.revision && facts.lease.settlement?.revision === decision.settledRevision;
  if (!matches) throw new Error(`archived decision of ${leaseId}: the facts brought are not those at the archived revisions`);
  return facts;
}

/**
 * The revision of the decision already recorded for this reserve's payment (its refusal or its
 * lease), held or archived; undefined when there is none.
 */
function priorDecisionOf(state: GovernorState, c: ReserveCommand): number | undefined {
  const refused = state.refusals.get(c.paymentId);
  if (refused !== undefined) return refused;
  const leaseId = leaseIdFor(c.agent_id, c.paymentId);
  const held = state.leases.get(leaseId);
  if (held) return held.paymentId === c.paymentId ? held.revision : undefined;
  const decision = state.archive.find(leaseId);
  if (!decision) return undefined;
  const facts = checkedFacts(leaseId, decision, c.archived);
  // Another payment's decision under the same 8 bytes of hash is not this one's.
  const paymentId = 'refusal' in facts ? facts.refusal.paymentId : facts.lease.paymentId;
  return paymentId === c.paymentId ? decision.revision : undefined;
}

/** The lease of this id, held or archived (then brought by the command); undefined when the agent has none. */
function leaseOf(state: GovernorState, leaseId: string, archived: ArchivedFacts | undefined): { lease: Lease; archived: boolean } | undefined {
  const held = state.leases.get(leaseId);
  if (held) return { lease: held, archived: false };
  const decision = archivedLeaseDecision(state, leaseId);
  if (!decision) return undefined;
  const facts = checkedFacts(leaseId, decision, archived);
  return 'lease' in facts && facts.lease.lease_id === leaseId ? { lease: facts.lease, archived: true } : undefined;
}

/** Whether the agent has a lease of this id, held or archived (a free check before a settlement is paid). */
export function holdsLease(state: GovernorState, leaseId: string): boolean {
  return state.leases.has(leaseId) || archivedLeaseDecision(state, leaseId) !== undefined;
}

/**
 * The archive's entry for a lease of this id that the state no longer holds whole: undefined when
 * it is held, or has no entry, or the entry under its key is a refusal (a reserve, not a lease).
 */
export function archivedLeaseDecision(state: GovernorState, leaseId: string): ArchivedDecision | undefined {
  if (state.leases.has(leaseId)) return undefined;
  const decision = state.archive.find(leaseId);
  return decision?.refused ? undefined : decision;
}

/** The one way a decider refuses (kernel/decider.ts): thrown, so no refusal can be mistaken for events. */
const refuse = (status: DomainRefusal['status'], error: string, message: string, outcome?: string): never => {
  throw new DomainRefusal(status, error, message, outcome);
};

function budgetMembers(budget: Budget, usage: Usage): JsonObject {
  return { cap: formatAmount(budget.capMicros), period: budget.periodSeconds, windowStart: usage.windowStart, windowEnd: usage.windowEnd };
}

function decideReserve(c: ReserveCommand, state: GovernorState): GovernorEvent[] {
  assertOwnAgent(state, c.payer);
  // A resumed call finds its own earlier decision and writes nothing more.
  if (priorDecisionOf(state, c) !== undefined) return [];
  const opening: GovernorEvent[] = [];
  let current = state;
  if (!state.budget) {
    if (!c.budget) return refuse(422, 'budget_required', `agent ${c.agent_id} has no budget yet: the first reserve must carry budget {cap, period}`, 'INVALID-INPUT');
    const opened: GovernorEvent = {
      type: 'BudgetOpened',
      data: { agent_id: c.agent_id, owner: c.payer, capMicros: c.budget.capMicros.toString(), periodSeconds: c.budget.periodSeconds, openedAt: c.now, paymentId: c.paymentId },
    };
    opening.push(opened);
    current = evolveGovernor(state, opened);
  } else {
    if (c.budget && (c.budget.capMicros !== state.budget.capMicros || c.budget.periodSeconds !== state.budget.periodSeconds)) {
      return refuse(409, 'budget_mismatch', `agent ${c.agent_id} already has budget cap ${formatAmount(state.budget.capMicros)} per ${state.budget.periodSeconds} s; omit budget or send the same one`);
    }
  }
  const budget = current.budget!;
  const usage = usageAt(current, c.now)!;
  const common = { kind: 'governance.lease', ruleset: { ...GOVERNOR_RULESET }, owner: budget.owner, agent_id: c.agent_id, amount: formatAmount(c.amountMicros), purpose: c.purpose };
  if (c.amountMicros > usage.availableMicros) {
    const record: JsonObject = {
      ...common,
      outcome: 'BUDGET-EXCEEDED',
      requestedAt: c.now,
      budget: budgetMembers(budget, usage),
      reserved: formatAmount(usage.reservedMicros),
      spent: formatAmount(usage.spentMicros),
      available: formatAmount(usage.availableMicros),
    };
    return [...opening, { type: 'ReserveRefused', data: { paymentId: c.paymentId, record } }];
  }
  const lease_id = leaseIdFor(c.agent_id, c.paymentId);
  const expiresAt = c.now + c.ttlSeconds;
  const record: JsonObject = {
    ...common,
    outcome: 'RESERVED',
    lease_id,
    reservedAt: c.now,
    expiresAt,
    budget: budgetMembers(budget, usage),
    reserved: formatAmount(usage.reservedMicros + c.amountMicros),
    spent: formatAmount(usage.spentMicros),
    available: formatAmount(usage.availableMicros - c.amountMicros),
  };
  return [
    ...opening,
    { type: 'LeaseReserved', data: { lease_id, amountMicros: c.amountMicros.toString(), purpose: c.purpose, reservedAt: c.now, expiresAt, paymentId: c.paymentId, record } },
  ];
}

/**
 * The one answer for a lease the payer's agent does not hold, whether another payer's agent holds
 * it or nobody's does: nothing tells a payer that another payer's lease exists.
 */
export function leaseNotFoundMessage(leaseId: string): string {
  return `lease ${leaseId} is not a lease of your agent: a lease is settled by the payer that reserved it`;
}

function decideSettle(c: SettleCommand, state: GovernorState): GovernorEvent[] {
  assertOwnAgent(state, c.payer);
  const found = state.budget ? leaseOf(state, c.lease_id, c.archived) : undefined;
  if (!state.budget || !found) return refuse(422, 'lease_not_found', leaseNotFoundMessage(c.lease_id), 'NOT-FOUND');
  const { lease } = found;
  if (lease.settlement) {
    if (lease.settlement.actualMicros === c.actualMicros) return [];
    return refuse(409, 'lease_already_settled', `lease ${c.lease_id} was already settled at ${formatAmount(lease.settlement.actualMicros)}`);
  }
  // Archived unsettled, it expired over a day before the stream's latest event, whatever this call's clock says.
  if (found.archived || isReleased(lease, c.now)) return refuse(409, 'lease_expired', `lease ${c.lease_id} expired at ${lease.expiresAt} and its reservation was released`);
  if (c.actualMicros > lease.amountMicros) {
    return refuse(422, 'actual_exceeds_reserved', `actual_amount ${formatAmount(c.actualMicros)} exceeds the reserved ${formatAmount(lease.amountMicros)}`, 'INVALID-INPUT');
  }
  const record: JsonObject = {
    kind: 'governance.settlement',
    ruleset: { ...GOVERNOR_RULESET },
    owner: state.budget.owner,
    outcome: 'SETTLED',
    agent_id: c.agent_id,
    lease_id: c.lease_id,
    reserved_amount: formatAmount(lease.amountMicros),
    actual_amount: formatAmount(c.actualMicros),
    released_amount: formatAmount(lease.amountMicros - c.actualMicros),
    reservedAt: lease.reservedAt,
    settledAt: c.now,
  };
  return [{ type: 'LeaseSettled', data: { lease_id: c.lease_id, actualMicros: c.actualMicros.toString(), settledAt: c.now, paymentId: c.paymentId, record } }];
}

/** The spend governor of one payer's agent: a budget, its leases, and the refused reserves. */
export const governorDecider: Decider<GovernorCommand, GovernorEvent, GovernorState> = {
  initialState: initialGovernorState,
  decide: (command, state) => (command.kind === 'reserve' ? decideReserve(command, state) : decideSettle(command, state)),
  evolve: evolveGovernor,
  keptSize: (state) => state.keptChars,
  snapshot: governorStateCodec,
};

/** The revision, in the agent's stream, of the event whose signed record a command's call answers with, once its events are folded in. */
export function resultRevisionOf(command: GovernorCommand, state: GovernorState): number | undefined {
  if (command.kind === 'reserve') return priorDecisionOf(state, command);
  const found = leaseOf(state, command.lease_id, command.archived);
  return found?.lease.settlement?.revision;
}

/** The read model of GET /v1/governance/state/{agent_id}, at `now`. */
export function governorStateView(state: GovernorState, now: number): JsonObject | undefined {
  const usage = usageAt(state, now);
  if (!state.budget || !usage) return undefined;
  return {
    agent_id: state.agent_id ?? '',
    ruleset: { ...GOVERNOR_RULESET },
    owner: state.budget.owner,
    budget: budgetMembers(state.budget, usage),
    reserved: formatAmount(usage.reservedMicros),
    spent: formatAmount(usage.spentMicros),
    available: formatAmount(usage.availableMicros),
    openLeases: openLeasesAt(state, now)
      .sort((a, b) => a.reservedAt - b.reservedAt || a.lease_id.localeCompare(b.lease_id))
      .map((l) => ({ lease_id: l.lease_id, amount: formatAmount(l.amountMicros), purpose: l.purpose, reservedAt: l.reservedAt, expiresAt: l.expiresAt })),
    asOf: now,
  };
}
