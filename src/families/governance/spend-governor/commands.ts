import type { CallContext, Command, Refusal } from '../../../kernel/operation.ts';
import {
  agentOfLease,
  governorDecider,
  holdsLease,
  leaseNotFoundMessage,
  resultRevisionOf,
  type GovernorCommand,
  type GovernorEvent,
  type GovernorState,
  type ReserveCommand,
  type SettleCommand,
} from './decider.ts';
import { archivedFactsFrom, archivedRevisionsFor } from './archived-facts.ts';
import { parseAmount } from '../../../kernel/decimal-amount.ts';
import type { EventStore } from '../../../events/port.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { agentStreamName } from '../events.ts';
import { DomainRefusal, eventAt, handleCommand } from '../../../kernel/decider.ts';
import { storedRecordResult } from '../../../kernel/signing-stamp.ts';
import { parseAgentEvent, payersAgent } from './agent-stream.ts';

/**
 * A dry run of the decision against the payer's agent as it is now, before the payment is
 * settled: an unknown or finished lease, or a reserve that cannot fit, is answered free of
 * charge. A concurrent reserve may still take the room between this check and the execution;
 * the execution then answers a signed BUDGET-EXCEEDED.
 */
function refusalBeforeSettlement(command: GovernorCommand, state: GovernorState): Refusal | undefined {
  let events;
  try {
    events = governorDecider.decide(command, state);
  } catch (err) {
    if (!(err instanceof DomainRefusal)) throw err;
    return err.asRefusal();
  }
  const refused = events.find((e) => e.type === 'ReserveRefused');
  if (refused) {
    const record = refused.data.record;
    return {
      status: 422,
      error: 'budget_exceeded',
      message: `amount ${String(record.amount)} does not fit: ${String(record.available)} available of cap ${String((record.budget as { cap?: string }).cap)}`,
      outcome: 'BUDGET-EXCEEDED',
    };
  }
  return undefined;
}

/**
 * The command with what the agent's stream holds of the archived decision it names, if it names
 * one (a settlement of an old lease, a resumed reserve of an old payment): one or two events read
 * by revision, so a state that keeps 16 bytes of an old lease decides as if it held it whole.
 */
async function withArchivedFacts<C extends GovernorCommand>(store: EventStore, stream: string, command: C, state: GovernorState): Promise<C> {
  const revisions = archivedRevisionsFor(command, state);
  if (revisions.length === 0) return command;
  const events = new Map(await Promise.all(revisions.map(async (revision) => [revision, await eventAt(store, stream, revision, parseAgentEvent)] as const)));
  const archived = archivedFactsFrom(command, state, events);
  return archived ? { ...command, archived } : command;
}

async function executeGovernor(command: GovernorCommand, ctx: CallContext) {
  const { stream } = await payersAgent(ctx.store, command.payer, command.agent_id);
  // The command as the last attempt decided it: with the archived facts read for that attempt's
  // state, which is the state handled answers with when the decision appended nothing.
  let decided = command;
  const handled = await handleCommand(ctx.store, stream, governorDecider, command, {
    origin: ctx.paymentId,
    parse: parseAgentEvent,
    prepare: async (c, state) => (decided = await withArchivedFacts(ctx.store, stream, c, state)),
    // Contention is the point of this aggregate: the many calls of one payer's agent race on its stream.
    maxAttempts: 500,
  });
  const record = handled.events.find(carriesRecord)?.data.record ?? (await recordAt(ctx, stream, decided, handled.state));
  // A settlement settled again is answered with the original receipt: sealed with the key of its time.
  return storedRecordResult(record);
}

type RecordEvent = Extract<GovernorEvent, { data: { record: JsonObject } }>;
const carriesRecord = (event: GovernorEvent): event is RecordEvent => 'record' in event.data;

/**
 * The signed record of an earlier call that this one answers with (a resumed call, a settlement
 * settled again), read back from the agent's stream at the revision the state keeps for it. The
 * command is the one decided on `state`: it brings the archived facts that state needs already.
 */
async function recordAt(ctx: CallContext, stream: string, command: GovernorCommand, state: GovernorState): Promise<JsonObject> {
  const revision = resultRevisionOf(command, state);
  if (revision === undefined) throw new Error(`governor produced no record for ${command.kind} of ${command.agent_id}`);
  const parsed = await eventAt(ctx.store, stream, revision, parseAgentEvent);
  if (!carriesRecord(parsed)) throw new Error(`${stream}: revision ${revision} holds no signed record`);
  return parsed.data.record;
}

/** Amounts arrive as decimal strings, already validated against AMOUNT_PATTERN by the input schema. */
export interface ReserveInput {
  agent_id: string;
  amount: string;
  purpose: string;
  ttl_seconds: number;
  budget?: { cap: string; period: number } | undefined;
}

export interface SettleInput {
  lease_id: string;
  actual_amount: string;
}

function micros(name: string, text: string): bigint {
  const value = parseAmount(text);
  if (value === undefined) throw new DomainRefusal(422, 'validation_error', `${name}: must be a decimal amount with at most 6 decimals`, 'INVALID-INPUT');
  return value;
}

function reserveCommand(input: ReserveInput, ctx: CallContext): ReserveCommand {
  return {
    kind: 'reserve',
    agent_id: input.agent_id,
    payer: ctx.payer.toLowerCase(),
    amountMicros: micros('amount', input.amount),
    purpose: input.purpose,
    ttlSeconds: input.ttl_seconds,
    ...(input.budget ? { budget: { capMicros: micros('budget.cap', input.budget.cap), periodSeconds: input.budget.period } } : {}),
    now: ctx.now,
    paymentId: ctx.paymentId,
  };
}

function settleCommand(input: SettleInput, ctx: CallContext): SettleCommand {
  const agent = agentOfLease(input.lease_id);
  // The input schema admits only lease ids that name their agent.
  if (!agent) throw new DomainRefusal(422, 'lease_not_found', leaseNotFoundMessage(input.lease_id), 'NOT-FOUND');
  return { kind: 'settle', agent_id: agent, lease_id: input.lease_id, payer: ctx.payer.toLowerCase(), actualMicros: micros('actual_amount', input.actual_amount), now: ctx.now, paymentId: ctx.paymentId };
}

/**
 * The stream the calls on the payer's agent wait for each other on: the payer's own stream name,
 * even for an agent kept in the legacy stream, which only its owner ever reaches.
 */
const payersAgentKey = (payer: string, agentId: string | undefined): string | undefined => (agentId === undefined ? undefined : agentStreamName(payer, agentId));

export const governanceReserve: Command<ReserveInput> = {
  async authorize(input, ctx) {
    const command = reserveCommand(input, ctx);
    const { stream, state } = await payersAgent(ctx.store, command.payer, command.agent_id);
    return refusalBeforeSettlement(await withArchivedFacts(ctx.store, stream, command, state), state);
  },
  stateStream: (input, payer) => payersAgentKey(payer, input.agent_id),
  execute: (input, ctx) => executeGovernor(reserveCommand(input, ctx), ctx),
};

/** An unknown lease is refused with the field named, the same whether or not another payer's agent holds it. */
function leaseNotFound(leaseId: string): Refusal {
  const message = leaseNotFoundMessage(leaseId);
  return { status: 422, error: 'lease_not_found', message, outcome: 'NOT-FOUND', issues: [{ path: 'lease_id', message }] };
}

export const governanceSettle: Command<SettleInput> = {
  async authorize(input, ctx) {
    const command = settleCommand(input, ctx);
    const { stream, state } = await payersAgent(ctx.store, command.payer, command.agent_id);
    if (!holdsLease(state, command.lease_id)) return leaseNotFound(input.lease_id);
    return refusalBeforeSettlement(await withArchivedFacts(ctx.store, stream, command, state), state);
  },
  stateStream: (input, payer) => payersAgentKey(payer, agentOfLease(input.lease_id)),
  execute: (input, ctx) => executeGovernor(settleCommand(input, ctx), ctx),
};
