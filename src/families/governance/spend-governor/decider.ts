import { DomainRefusal, type Decider } from '../../../kernel/decider.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { sha256Hex } from '../../../signing/hash.ts';
import { formatAmount } from '../../../kernel/decimal-amount.ts';
import { HashTrie } from '../../../kernel/hash-trie.ts';
import { OrderedSumTree } from '../../../kernel/ordered-sum-tree.ts';
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
}

export interface SettleCommand {
  kind: 'settle';
  agent_id: string;
  lease_id: string;
  payer: string;
  actualMicros: bigint;
  now: number;
  paymentId: string;
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

export const initialGovernorState: GovernorState = { leases: HashTrie.empty(), refusals: HashTrie.empty(), windows: HashTrie.empty(), events: 0, keptChars: 0 };

const EMPTY_WINDOW: WindowTally = { spentMicros: 0n, open: OrderedSumTree.empty() };

/** Agent ids name streams: a closed alphabet keeps every stream name unambiguous. */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Deterministic per payment, and carries its agent so that settle finds the stream. */
export function leaseIdFor(agentId: string, paymentId: string): string {
  return `${agentId}:${sha256Hex(`lease\u0000${paymentId}`).slice(0, 24)}`;
}

/** The agent a lease id belongs to, or undefined when the id is not one of ours. */
export function agentOfLease(leaseId: string): string | undefined {
  const at = leaseId.lastIndexOf(':');
  if (at <= 0 || !/^[0-9a-f]{24}$/.test(leaseId.slice(at + 1))) return undefined;
  const agent = leaseId.slice(0, at);
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
export function evolveGovernor(state: GovernorState, event: GovernorEvent): GovernorState {
  const next = applied(state, event);
  return { ...next, events: state.events + 1, keptChars: state.keptChars + (next === state ? 0 : keptCharsOf(event)) };
}

function applied(state: GovernorState, event: GovernorEvent): GovernorState {
  const revision = state.events;
  switch (event.type) {
    case 'BudgetOpened': {
      const d = event.data;
      if (state.budget) return state;
      return { ...state, agent_id: d.agent_id, budget: { owner: d.owner, capMicros: BigInt(d.capMicros), periodSeconds: d.periodSeconds, openedAt: d.openedAt } };
    }
    case 'LeaseReserved': {
      const d = event.data;
      if (state.leases.has(d.lease_id)) return state;
      return withReserved(state, { lease_id: d.lease_id, amountMicros: BigInt(d.amountMicros), purpose: d.purpose, reservedAt: d.reservedAt, expiresAt: d.expiresAt, paymentId: d.paymentId, revision });
    }
    case 'ReserveRefused':
      return state.refusals.has(event.data.paymentId) ? state : { ...state, refusals: state.refusals.set(event.data.paymentId, revision) };
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
      return 96 + event.data.lease_id.length + event.data.purpose.length + event.data.paymentId.length;
    case 'ReserveRefused':
      return 32 + event.data.paymentId.length;
    case 'LeaseSettled':
      return 48 + event.data.paymentId.length;
  }
}

/** The lease a reserve paid by `paymentId` made, found by its id (derived from the payment). */
function leaseReservedBy(state: GovernorState, agentId: string, paymentId: string): Lease | undefined {
  const lease = state.leases.get(leaseIdFor(agentId, paymentId));
  return lease?.paymentId === paymentId ? lease : undefined;
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
  if (state.refusals.has(c.paymentId) || leaseReservedBy(state, c.agent_id, c.paymentId)) return [];
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
  const lease = state.budget ? state.leases.get(c.lease_id) : undefined;
  if (!state.budget || !lease) return refuse(422, 'lease_not_found', leaseNotFoundMessage(c.lease_id), 'NOT-FOUND');
  if (lease.settlement) {
    if (lease.settlement.actualMicros === c.actualMicros) return [];
    return refuse(409, 'lease_already_settled', `lease ${c.lease_id} was already settled at ${formatAmount(lease.settlement.actualMicros)}`);
  }
  if (isReleased(lease, c.now)) return refuse(409, 'lease_expired', `lease ${c.lease_id} expired at ${lease.expiresAt} and its reservation was released`);
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
  if (command.kind === 'reserve') {
    return state.refusals.get(command.paymentId) ?? leaseReservedBy(state, command.agent_id, command.paymentId)?.revision;
  }
  return state.leases.get(command.lease_id)?.settlement?.revision;
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
