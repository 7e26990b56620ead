import type { CallContext, Command, Refusal } from '../../../kernel/operation.ts';
import {
  agentOfLease,
  governorDecider,
  resultRecordOf,
  type GovernorCommand,
  type GovernorEvent,
  type GovernorState,
} from './decider.ts';
import { parseAmount } from '../../../kernel/decimal-amount.ts';
import { agentStreamName, parseGovernorEvent } from '../events.ts';
import type { EventStore, RecordedEvent } from '../../../events/port.ts';
import { DomainRefusal, handleCommand, loadState } from '../../../kernel/decider.ts';
import { storedRecordResult } from '../../../kernel/signing-stamp.ts';

/** Stored event -> the engine's event, through the zod schemas of the event catalogue. */
export const parseAgentEvent = (event: Pick<RecordedEvent, 'type' | 'data'>): GovernorEvent => parseGovernorEvent(event);

export async function readGovernorState(store: EventStore, agentId: string): Promise<GovernorState> {
  return (await loadState(store, agentStreamName(agentId), governorDecider, parseAgentEvent)).state;
}

/**
 * A dry run of the decision against the stream as it is now, before the payment is settled:
 * another payer's agent (403), an unknown or finished lease, or a reserve that cannot fit is
 * answered free of charge. A concurrent reserve may still take the room between this check and
 * the execution; the execution then answers a signed BUDGET-EXCEEDED.
 */
async function refusalBeforeSettlement(command: GovernorCommand, ctx: CallContext): Promise<Refusal | undefined> {
  const state = await readGovernorState(ctx.store, command.agent_id);
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

async function executeGovernor(command: GovernorCommand, ctx: CallContext) {
  const handled = await handleCommand(ctx.store, agentStreamName(command.agent_id), governorDecider, command, {
    origin: ctx.paymentId,
    parse: parseAgentEvent,
    // Contention is the point of this aggregate: many agents' calls race on one stream.
    maxAttempts: 500,
  });
  const record = resultRecordOf(command, handled.state);
  if (!record) throw new Error(`governor produced no record for ${command.kind} of ${command.agent_id}`);
  // A settlement settled again is answered with the original receipt: sealed with the key of its time.
  return storedRecordResult(record);
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

function reserveCommand(input: ReserveInput, ctx: CallContext): GovernorCommand {
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

function settleCommand(input: SettleInput, ctx: CallContext): GovernorCommand {
  const agent = agentOfLease(input.lease_id);
  // The input schema admits only lease ids that name their agent.
  if (!agent) throw new DomainRefusal(422, 'lease_not_found', `lease ${input.lease_id} is not a lease id of this service`, 'NOT-FOUND');
  return { kind: 'settle', agent_id: agent, lease_id: input.lease_id, payer: ctx.payer.toLowerCase(), actualMicros: micros('actual_amount', input.actual_amount), now: ctx.now, paymentId: ctx.paymentId };
}

export const governanceReserve: Command<ReserveInput> = {
  authorize: (input, ctx) => refusalBeforeSettlement(reserveCommand(input, ctx), ctx),
  stateStream: (input) => agentStreamName(input.agent_id),
  execute: (input, ctx) => executeGovernor(reserveCommand(input, ctx), ctx),
};

export const governanceSettle: Command<SettleInput> = {
  authorize: (input, ctx) => refusalBeforeSettlement(settleCommand(input, ctx), ctx),
  stateStream: (input) => {
    const agent = agentOfLease(input.lease_id);
    return agent === undefined ? undefined : agentStreamName(agent);
  },
  execute: (input, ctx) => executeGovernor(settleCommand(input, ctx), ctx),
};
